#!/usr/bin/env bash
# A one-node SLURM cluster on this machine, and paragen's tiny configuration (tests/fixtures/tiny_params.yaml)
# run three ways whose results/ must be byte-identical (issue 12):
#   local   snakemake --cores 2                                          (as tests/test_e2e.py runs it)
#   slurm   snakemake --profile workflow/profiles/slurm                  (executor plugin: one sbatch job per rule)
#   dvc     sbatch --wait ... --wrap 'dvc repro'                         (the whole DAG in one job)
#
#   bash bench/slurm_local.sh          set the cluster up where none answers, run the three, compare (exit 0 = equal)
#   bash bench/slurm_local.sh setup    only install, configure and start the cluster
#   bash bench/slurm_local.sh run      only run and compare, on a cluster that already answers
#   bash bench/slurm_local.sh stop     stop the daemons this script started
#
# Run it from the environment paragen is installed in (an activated virtual environment). `setup` needs root:
# it installs Debian's slurm-wlm and munge with apt-get, writes /etc/slurm/slurm.conf and gres.conf (it refuses to
# replace a slurm.conf it did not write) and starts munged, slurmctld and slurmd on this host.
#
# No GPU here, and the honest way round it: the node declares one stand-in GPU, a GRES "gpu" whose device file
# is /dev/null (SLURM 22.05 drops a file-less GPU). So the sbatch lines are exactly those a GPU cluster gets
# (train and decode: -p gpu --gpus=N; everything else: -p cpu, from workflow/profiles/slurm/partitions.yaml),
# SLURM schedules the GPU as one consumable unit, and the jobs then find no CUDA device and train on the CPU,
# as paragen does on any machine without one. Both partitions hold this one node.
#
# snakemake-executor-plugin-slurm (pinned below, with its jobstep plugin and pandas) goes into an overlay
# environment, $WORK/venv, layered on the active one with a .pth file, so the active environment is left as it
# was. Its status queries use squeue: this cluster keeps no accounting database, so sacct has nothing to say.
set -euo pipefail

PLUGIN="snakemake-executor-plugin-slurm==2.8.0"  # needs snakemake-interface-executor-plugins >=9.4 (snakemake 9.27.1)
MARK="# written by paragen bench/slurm_local.sh"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${SLURM_WORK:-$ROOT/.slurm}"
PYTHON="$(command -v python || command -v python3)"
PYBIN="$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')")"
export PATH="$PYBIN:$PATH"  # paragen, snakemake, dvc of the active environment, also inside the jobs

say() { printf '\n== %s\n' "$*"; }
die() { printf 'slurm_local.sh: %s\n' "$*" >&2; exit 1; }

setup() {
    if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
        [ "$(id -u)" = 0 ] || die "installing SLURM needs root (apt-get install slurm-wlm munge)"
        say "apt-get install slurm-wlm munge"
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
    fi
    if sinfo >/dev/null 2>&1; then
        say "a SLURM cluster already answers: using it as it is"; sinfo; return
    fi
    [ "$(id -u)" = 0 ] || die "starting the SLURM daemons needs root"
    local conf=/etc/slurm/slurm.conf
    if [ -e "$conf" ] && ! grep -qF "$MARK" "$conf"; then
        die "$conf exists and was not written by this script: not replacing it"
    fi
    local node host
    node="$(slurmd -C | head -n 1)"  # NodeName=<host> CPUs=... RealMemory=... as slurmd detects them
    host="$(hostname -s)"
    say "configuring a one-node cluster on $host"
    mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/munge /var/log/munge /var/lib/munge
    cat > "$conf" <<EOF
$MARK
# One node that is both controller and compute node; no accounting database; no cgroups (containers).
ClusterName=paragen
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
MpiDefault=none
ReturnToService=2
# finished jobs stay visible to squeue for 10 minutes: the executor plugin's status queries read them there
MinJobAge=600
GresTypes=gpu
$node NodeAddr=127.0.0.1 Gres=gpu:1 State=UNKNOWN
PartitionName=cpu Nodes=$host Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=$host MaxTime=INFINITE State=UP
EOF
    cat > /etc/slurm/gres.conf <<EOF
$MARK
# A stand-in GPU: this machine has none. SLURM counts it and sets CUDA_VISIBLE_DEVICES; torch finds no device.
NodeName=$host Name=gpu File=/dev/null
EOF
    chown -R munge:munge /run/munge /var/log/munge /var/lib/munge
    pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged
    pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
    pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
    for _ in $(seq 30); do
        sinfo -h -o %T 2>/dev/null | grep -qx idle && break
        scontrol update nodename="$host" state=resume >/dev/null 2>&1 || true
        sleep 1
    done
    sinfo -h -o %T | grep -qx idle || die "the node did not come up: see /var/log/slurm/slurmd.log, slurmctld.log"
    sinfo
}

stop() {  # by the pid files of the daemons as setup configured them
    local pidfile
    for pidfile in /run/slurmd.pid /run/slurmctld.pid /run/munge/munged.pid; do
        [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null && echo "stopped $(cat "$pidfile") ($pidfile)"
    done
    return 0
}

plugin_env() {
    local venv="$WORK/venv"
    if ! "$venv/bin/python" -c 'import snakemake_executor_plugin_slurm' 2>/dev/null; then
        say "pip install $PLUGIN into $venv (layered on $PYBIN/..)"
        rm -rf "$venv"
        "$PYTHON" -m venv --without-pip "$venv"
        local site overlay
        site="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        overlay="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
        # addsitedir, not a bare path: the active environment's own .pth files (editable installs) apply too
        echo "import site; site.addsitedir('$site')" > "$overlay/_paragen_base_env.pth"
        "$PYTHON" -m pip --python "$venv/bin/python" install -q "$PLUGIN"
    fi
    "$venv/bin/python" -m pip --python "$venv/bin/python" list 2>/dev/null | grep -E '^snakemake(-executor-plugin-slurm.*)? '
}

workflow_copy() {  # the real workflow files with the tiny configuration, as tests/conftest.py's workflow_dir
    mkdir -p "$1"
    cp -r "$ROOT/Snakefile" "$ROOT/workflow" "$ROOT/.dvcignore" "$1/"
    cp "$ROOT/tests/fixtures/tiny_params.yaml" "$1/params.yaml"
}

timed() {  # timed LABEL LOG COMMAND...: run, log everything, print the time and the exit status
    local label="$1" log="$2" start status=0
    shift 2
    start=$(date +%s)
    "$@" > "$log" 2>&1 || status=$?
    echo "$label: exit $status after $(( $(date +%s) - start )) s (log: $log)"
    return "$status"
}

run() {
    sinfo >/dev/null 2>&1 || die "no SLURM cluster answers (sinfo): run 'bash bench/slurm_local.sh setup' first"
    say "versions"
    sinfo --version
    snakemake --version | sed 's/^/snakemake /'
    plugin_env
    local runs="$WORK/runs"
    rm -rf "$runs"
    for mode in local slurm dvc; do workflow_copy "$runs/$mode"; done

    say "local: snakemake --cores 2"
    (cd "$runs/local" && timed local "$runs/local.log" snakemake --cores 2)

    say "slurm: snakemake --profile workflow/profiles/slurm (one sbatch job per rule)"
    (cd "$runs/slurm" && timed slurm "$runs/slurm.log" "$WORK/venv/bin/python" -m snakemake \
        --profile workflow/profiles/slurm --slurm-status-command squeue \
        --slurm-init-seconds-before-status-checks 5 --slurm-keep-successful-logs --verbose) \
        || { tail -n 40 "$runs/slurm.log"; die "the SLURM run failed"; }
    echo "  the executor plugin's sbatch calls (job name, log and the long snakemake line shortened):"
    grep -o "sbatch call: .*" "$runs/slurm.log" | sed -E "s/--(job-name|output|comment) [^ ]+ //g; \
        s/ --wrap=.*--target-jobs '([A-Za-z0-9_]+):'.*/ --wrap='python -m snakemake --target-jobs \1 ...'/; s/^/    /"
    local ids
    ids=$(grep -o "submitted with SLURM jobid [0-9]*" "$runs/slurm.log" | awk '{print $NF}' | paste -sd, -)
    echo "  the jobs as SLURM recorded them:"
    squeue --states=all --jobs "$ids" -O "JobID:6,Partition:10,tres-per-job:13,NumCPUs:6,MinMemory:11,TimeLimit:10,\
State:10,Comment:40" | sed 's/^/    /'

    say "dvc: dvc repro inside one sbatch job"
    local options
    (cd "$runs/dvc" && git init -q && dvc init -q && paragen dvc-yaml >/dev/null)
    options="$(cd "$runs/dvc" && "$PYTHON" -m paragen.pipeline.sbatch)"  # the largest request, the summed wall time
    echo "  sbatch --wait -p gpu $options --cpus-per-task=2 --wrap 'dvc repro'"
    # shellcheck disable=SC2086  # the options are words
    (cd "$runs/dvc" && timed dvc "$runs/dvc.log" sbatch --wait --parsable -p gpu $options --cpus-per-task=2 \
        -o "$runs/dvc/dvc_repro.log" --wrap "echo job \$SLURM_JOB_ID on \$SLURM_JOB_PARTITION, GPU index \
\${SLURM_JOB_GPUS:-none}, CUDA_VISIBLE_DEVICES=\${CUDA_VISIBLE_DEVICES-unset}; exec dvc repro") \
        || { tail -n 40 "$runs/dvc/dvc_repro.log"; die "the dvc repro job failed"; }
    head -n 1 "$runs/dvc/dvc_repro.log" | sed 's/^/  /'
    grep -c "^Running stage" "$runs/dvc/dvc_repro.log" | sed 's/^/  stages run: /'

    say "compare results/ byte for byte with the local run"
    local files status=0 file
    files=$(cd "$runs/local" && find results -type f | sort)
    echo "  $(echo "$files" | wc -l) files under results/ in the local run"
    for mode in slurm dvc; do
        if diff -r --brief "$runs/local/results" "$runs/$mode/results"; then
            echo "  $mode: results/ identical to local"
        else
            echo "  $mode: results/ DIFFERS from local"; status=1
        fi
    done
    # shellcheck disable=SC2086
    (cd "$runs/local" && sha256sum $files) | sed 's/^/  /'
    # Snakemake exports OMP_NUM_THREADS=<the rule's threads> to every job and dvc repro does not, so where
    # decoding.*.threads is unset (the tiny configuration) DVC's decoding runs on all cores and its n-best
    # scores may differ from Snakemake's in the last bits; the decoded sentences and results/ do not.
    echo "  beyond results/ (not required to agree; checkpoints and logs hold times):"
    for mode in slurm dvc; do
        for file in $(cd "$runs/local" && find runs -name 'test.hyp' -o -name '*.jsonl' -o -name 'copy_trace.json' \
                      | sort); do
            cmp -s "$runs/local/$file" "$runs/$mode/$file" && echo "    $mode $file: identical" \
                || echo "    $mode $file: differs"
        done
    done
    return "$status"
}

case "${1:-all}" in
    setup) setup ;;
    run) run ;;
    stop) stop ;;
    all) sinfo >/dev/null 2>&1 || setup; run ;;
    *) die "unknown command ${1}: setup, run, stop or nothing (all)" ;;
esac
