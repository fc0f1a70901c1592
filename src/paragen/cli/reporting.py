"""The report commands: one table with its figures, the index, and the human-evaluation sheets."""

from __future__ import annotations

import argparse
import logging

from paragen.markdown_text import write_markdown
from paragen.cli.args import input_file, named_input_file, output_file, positive_int
from paragen.cli.common import Commands, named_files, load_params
from paragen.data.corpus import read_lines

log = logging.getLogger("paragen")


def cmd_report(args: argparse.Namespace) -> None:
    from paragen.report.build import build_table_report

    build_table_report(load_params(args), args.table, figures=not args.tables_only, redraw=args.redraw)


def cmd_matrix(args: argparse.Namespace) -> None:
    from paragen.report.matrix_render import write_matrix

    for path in write_matrix(load_params(args), figures=not args.tables_only):
        print(f"wrote {path}")


def cmd_check_tables(args: argparse.Namespace) -> None:
    from paragen.report.staleness import check_tables

    stale, checked = check_tables(".", args.table or None, args.update)
    for item in stale:
        print(item.describe())
    print(f"{len(checked)} table(s) rebuilt from results/provenance/ and results/metrics/: {', '.join(checked)}; "
          f"{len(stale)} stale file(s)" + (", each replaced by its rebuild" if args.update and stale else ""))
    if stale and not args.update:
        raise SystemExit(1)


def cmd_index(args: argparse.Namespace) -> None:
    from paragen.report.index import write_index

    write_index(load_params(args))


def cmd_human_eval_export(args: argparse.Namespace) -> None:
    from paragen.report.human_eval import export_sheet

    systems = {name: lines for name, (_, lines) in named_files(args.system).items()}
    items = export_sheet(read_lines(args.src), systems, args.sheet, args.key, args.seed, args.sample)
    log.info("wrote %s (%d items, blind and shuffled) and its key %s", args.sheet, items, args.key)


def cmd_human_eval_ingest(args: argparse.Namespace) -> None:
    from paragen.report.human_eval import ingest_sheets, to_markdown

    result = ingest_sheets(args.key, args.sheet)
    text = to_markdown(result, args.title)
    write_markdown(args.out, text)
    print(text, end="")


def cmd_params_doc(args: argparse.Namespace) -> None:
    from paragen.config.reference import check_params_reference, write_params_reference

    if args.check:
        if not check_params_reference(args.output):
            raise ValueError(f"{args.output} is out of date: run `paragen params-doc`")
        print(f"{args.output} is up to date")
        return
    print(f"{args.output} {'written' if write_params_reference(args.output) else 'already up to date'}")


def register(commands: Commands) -> None:
    """Add this module's subcommands to ``paragen``'s parser."""
    add = commands.add
    p = add("report", cmd_report, "write one reproduced table with its figures",
            writes=lambda a: [(f"results/tables/{a.table}", False)])
    p.add_argument("--table", required=True,
                   help="a table name under params.yaml's tables: (an unknown name lists the valid ones)")
    p.add_argument("--data", help="comma-separated real datasets switched on (default: params.yaml's data:)")
    p.add_argument("--seeds", type=positive_int,
                   help="training runs per trained row whose mean ± sd the cells show (default: params.yaml's seeds:)")
    p.add_argument("--tables-only", action="store_true",
                   help="write the table's files and its provenance, no figures (rebuilding from results/provenance/)")
    p.add_argument("--redraw", action="store_true",
                   help="as --tables-only, and draw the figures that need only training logs and metrics (curves, "
                   "training panels, odd generation); the heat maps, which need a decode's traces, are left as they "
                   "are (rebuilding from results/provenance/: paragen check-tables --update)")
    p = add("matrix", cmd_matrix, "write the mechanism x task matrix (results/tables/matrix.*, its heat map) from its "
            "cells' metrics and paired tests", writes=lambda a: [("results/tables/matrix", False)])
    p.add_argument("--data", help="comma-separated real datasets switched on (default: params.yaml's data:)")
    p.add_argument("--suites", help="comma-separated suites of this run (default: params.yaml's suites:)")
    p.add_argument("--tables-only", action="store_true", help="write the table files, not the heat map")
    p = add("check-tables", cmd_check_tables, "rebuild every committed table from results/metrics/ and "
            "results/provenance/ in a scratch folder and name each committed file that differs (stale or edited)",
            params=False)
    p.add_argument("--table", action="append", help="check only this table (repeatable; default: all)")
    p.add_argument("--update", action="store_true",
                   help="write each rebuilt file that differs over the committed one, and the figures the rebuild "
                   "redraws from the kept training logs and metrics (after a change to the report code)")
    p = add("index", cmd_index, "write results/REPORT.md, the index of every table and figure")
    p.add_argument("--suites", help="comma-separated suites of this run (default: params.yaml's suites:)")
    p.add_argument("--scale", choices=["default", "paper"], help="scale of this run (default: params.yaml's scale:)")
    p = add("human-eval-export", cmd_human_eval_export,
            "write a blind, shuffled rating sheet (CSV) of system outputs and its key (WEAN Table 3)", params=False)
    p.add_argument("--src", required=True, type=input_file, help="source sentences, one per line")
    p.add_argument("--system", required=True, action="append", type=named_input_file,
                   help="NAME=FILE; repeat for each system")
    p.add_argument("--sheet", required=True, type=output_file, help="the CSV to hand to raters")
    p.add_argument("--key", required=True, type=output_file,
                   help="JSON mapping item ids to systems (keep it from the raters)")
    p.add_argument("--sample", type=int, help="rate this many randomly chosen sentences (default: all)")
    p.add_argument("--seed", type=int, default=1)
    p = add("human-eval-ingest", cmd_human_eval_ingest,
            "means per system and paired t-tests from filled rating sheets (WEAN Table 3 layout)", params=False)
    p.add_argument("--key", required=True, type=input_file, help="the key written by human-eval-export")
    p.add_argument("--sheet", required=True, action="append", type=input_file,
                   help="a filled sheet; repeat for each rater")
    p.add_argument("--out", required=True, type=output_file, help="Markdown table to write")
    p.add_argument("--title", default="Human evaluation")
    p = add("params-doc", cmd_params_doc, "write docs/params.md, the parameter reference, from params.yaml's schema "
            "(descriptions, types, defaults, allowed values)", params=False)
    p.add_argument("--output", default="docs/params.md", type=output_file)
    p.add_argument("--check", action="store_true", help="fail if the file differs from what the schema gives")
