"""The mutation groups of ``bench/mutation.sh``: which files mutmut mutates and which fast tests pin them.

Usage: python bench/mutation_groups.py GROUP PYPROJECT   (rewrites PYPROJECT's [tool.mutmut] for GROUP; the
script runs it on a scratch copy, never on the project's own pyproject.toml)

The test lists are the unit tests that compute each package's numbers by hand or by an independent formula;
end-to-end tests are left out (a mutant that only an engine run would catch is listed as a survivor, to be
pinned by a unit test or shown equivalent in docs/mutation.md).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

GROUPS: dict[str, tuple[list[str], list[str]]] = {
    "resources": (["src/paragen/pipeline/resources.py"],
                  ["tests/test_resources.py", "tests/test_resource_formula_faults.py", "tests/test_resource_mutants.py",
                   "tests/test_suite_costs.py",
                   "tests/test_local_data.py::test_cluster_requests_size_a_local_split_by_its_lines",
                   "-m", "not e2e and not cluster"]),
    "metrics": (["src/paragen/metrics/*"],
                ["tests/test_metrics_text.py", "tests/test_sari_cases.py", "tests/test_sari_sentence.py",
                 "tests/test_sari_sentence_partial.py", "tests/test_rouge_perl.py", "tests/test_rouge_perl_average.py",
                 "tests/test_rouge_perl_exception_order.py", "tests/test_bootstrap_tails.py",
                 "tests/test_alignment_metric.py", "tests/test_cluster_bootstrap.py",
                 "tests/test_align.py", "tests/test_scoring.py",  # aligned pairs, is_odd, exact_match
                 "tests/test_sari_orders.py", "tests/test_bootstrap_defaults.py", "tests/test_metric_defaults.py",
                 "tests/test_rouge_perl_failures.py", "-m", "not e2e"]),
    "scoring": (["src/paragen/scoring/*"],
                ["tests/test_scoring.py", "tests/test_metrics_text.py", "tests/test_systems.py",
                 "tests/test_cli_inputs.py", "tests/test_real_experiments.py", "tests/test_headline_suite.py",
                 "tests/test_rule_comparisons.py", "tests/test_cluster_bootstrap.py", "tests/test_rouge_perl.py",
                 "tests/test_scoring_wiring.py", "tests/test_scoring_survivors.py", "tests/test_closest_heldout.py",
                 "-m", "not e2e"]),
    "data": (["src/paragen/data/*"],
             ["tests/test_corpus.py", "tests/test_prepare.py", "tests/test_segment.py", "tests/test_segment_record.py",
              "tests/test_synthetic.py",
              "tests/test_synthetic_splits.py", "tests/test_synthetic_ceiling.py", "tests/test_local_data_faults.py",
              "tests/test_overlap.py", "tests/test_headline_synthetic.py", "tests/test_fetch.py",
              "tests/test_registry.py", "tests/test_ew_sew_hwang.py",  # registry, hwang
              "tests/test_ew_sew_hwang_filter.py", "tests/test_local_data.py", "tests/test_ew_sew_recipe.py",
              "tests/test_local_prepare_record.py", "tests/test_vocabulary_file.py", "tests/test_generator_draws.py",
              "tests/test_models.py", "tests/test_teacher_forcing.py",  # vocabulary and batching
              "tests/test_training.py", "tests/test_spm.py",  # tag_column; fill_targets (004 Eq. 9 by hand)
              "tests/test_safe_extract_cases.py", "tests/test_segment_workers.py",  # written for the 2026-11-28 run
              "tests/test_prepare_recipe_cases.py", "tests/test_gigaword_lcsts_cases.py",
              "tests/test_prepare_dataset_cases.py", "tests/test_data_small_cases.py",
              "tests/test_fetch_dataset_cases.py", "tests/test_batching_fetch_cases.py",
              "tests/test_read_lines_cases.py", "tests/test_http_download_cases.py",
              "-m", "not e2e"]),
    "simplification": (["src/paragen/simplification/*"],
                       ["tests/test_ppdb.py", "tests/test_systems.py", "tests/test_scoring_variants.py",
                        "tests/test_protocol_cv.py", "tests/test_simplification_mutants.py",
                        "tests/test_scoring_variants_render.py", "tests/test_simplification_outputs_sweep.py",
                        "-m", "not e2e"]),
    "report": (["src/paragen/report/*", "src/paragen/rounding.py"],
               ["tests/test_report.py", "tests/test_reading.py", "tests/test_own_tables.py",
                "tests/test_closest_epoch.py", "tests/test_closest_epoch_seeds.py", "tests/test_closest_epoch_rows.py",
                "tests/test_closest_heldout.py", "tests/test_bootstrap_p_text.py",  # S21's lines; p at resolution
                "tests/test_datasets_table.py", "tests/test_human_eval.py", "tests/test_human_eval_cases.py",
                "tests/test_rounding.py",
                "tests/test_rule_comparisons.py", "tests/test_confirmation_seeds.py",
                "tests/test_baseline_sanity.py", "tests/test_committed_tables.py", "tests/test_copy_trace.py",
                "tests/test_examples_table.py", "tests/test_figure_style.py", "tests/test_headline_suite.py",
                "tests/test_headline_synthetic.py", "tests/test_matrix_report.py", "tests/test_matrix.py",
                "tests/test_overlap.py", "tests/test_pretrained.py", "tests/test_published_outputs.py",
                "tests/test_real_experiments.py", "tests/test_report_preflight.py", "tests/test_seeds.py",
                "tests/test_synthetic_ceiling.py",
                # written for the report's survivors (docs/mutation.md)
                "tests/test_matrix_paragraph.py", "tests/test_describe_systems.py",
                "tests/test_closest_rows_caption.py", "tests/test_report_index.py", "tests/test_report_small_texts.py",
                "tests/test_rank_heatmap.py", "tests/test_trace_heatmap_artists.py",
                "tests/test_matrix_ranks_verdicts.py", "tests/test_published_table_text.py",
                "tests/test_matrix_cells.py", "tests/test_matrix_page_cases.py", "tests/test_heatmap_sentences.py",
                "tests/test_curve_figure_artists.py", "tests/test_alignment_panel_artists.py",
                "tests/test_report_run_reading.py", "tests/test_aligned_pairs_page.py",
                "tests/test_alignment_figure_sources.py", "tests/test_row_cell_notes.py", "tests/test_sweep_caption.py",
                "tests/test_figure_writers.py", "tests/test_latex_table_text.py", "tests/test_scores_table_caption.py",
                "tests/test_parameters_table.py", "tests/test_fill_table_baselines.py",
                "tests/test_markdown_table_text.py", "tests/test_report_protocol_rows.py",
                "tests/test_published_rows.py",
                "tests/test_staleness_cases.py", "tests/test_caption_scale.py",  # written for the 2026-11-28 pieces
                "tests/test_examples_cases.py", "tests/test_provenance_cases.py", "tests/test_caption_data_texts.py",
                "tests/test_odd_generation_artists.py", "tests/test_baseline_void_cases.py",
                "tests/test_scores_table_build.py", "tests/test_loss_curve_figures.py",
                "tests/test_alignment_figure_layout.py", "tests/test_table_report_routes.py",
                # not test_architecture: it reads the source's layout, which mutmut's trampolines change. Every
                # committed table rebuilt (100 s) and a whole CLI run (13 s) reach nearly every function, so each
                # mutant would run them: left to CI; a mutant only they catch is listed as a survivor
                "--deselect", "tests/test_committed_tables.py::"
                "test_every_committed_table_rebuilds_from_committed_metrics_and_provenance",
                "--deselect", "tests/test_real_experiments.py::"
                "test_cli_trains_decodes_evaluates_and_reports_a_real_dataset",
                "-m", "not e2e and not cluster"]),
}


COPIED = ["params.yaml", "Snakefile", "workflow", ".dvcignore", "results", "README.md", "docs", "bench"]
"""What the tests read beside the package and tests/ (mutmut runs them in its mutants/ folder)."""


def rewrite(pyproject: Path, group: str) -> None:
    """Point [tool.mutmut]'s ``only_mutate``, test selection and copied files at ``group``'s."""
    mutate, tests = GROUPS[group]
    text = pyproject.read_text()
    for key, value in (("only_mutate", mutate), ("pytest_add_cli_args_test_selection", tests),
                       ("also_copy", COPIED)):
        rendered = "[" + ", ".join(f'"{v}"' for v in value) + "]"
        text, count = re.subn(rf"^{key} = \[[^\]]*\]", f"{key} = {rendered}", text, count=1, flags=re.M)
        if count != 1:
            raise SystemExit(f"{pyproject}: no `{key} = [...]` line under [tool.mutmut]")
    pyproject.write_text(text)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in GROUPS:
        raise SystemExit(f"usage: python bench/mutation_groups.py GROUP PYPROJECT; groups: {', '.join(GROUPS)}")
    rewrite(Path(sys.argv[2]), sys.argv[1])
