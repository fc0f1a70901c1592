"""Heat maps: CopyNet's copy mode per decoding step (Gu et al. Figure 3) and 004 Figure 4's attention and
source-side prediction, one figure per model. Style: :mod:`paragen.figure_style` (page width, 9-point labels)."""

from __future__ import annotations

import textwrap
from typing import Any

from paragen import figure_style as style

MAX_SOURCE_TOKENS = 30
"""At most this many source rows per heat-map panel: longer sources are cut to a window around the fillers."""
MAX_STEPS = 32
"""At most this many decoding steps per panel (their tokens label the columns at 9 pt across the page): a longer
output, such as a decoder looping, shows its first 32 steps and says how many it had."""
WRAP = 70
"""Characters of a 9-point line under a heat map (the page less its row labels and colour bar)."""


def source_window(length: int, spans: dict[str, list[int]] | None, limit: int = MAX_SOURCE_TOKENS) -> range:
    """The source positions a panel shows: all when they fit, else ``limit`` of them, centred on the fillers'
    spans (from the first span's start when the spans alone are longer)."""
    if length <= limit:
        return range(length)
    if not spans:
        return range(limit)
    first, last = min(s for s, _ in spans.values()), max(e for _, e in spans.values())
    start = max(0, min(first - max(0, (limit - (last - first)) // 2), length - limit))
    return range(start, start + limit)


def _wrapped(tokens: list[str], width: int = WRAP) -> str:
    return "\n".join(textwrap.wrap(" ".join(tokens), width))


def _source_labels(trace: dict[str, Any], shown: range) -> list[str]:
    """A source token's row label, prefixed with the filler it belongs to (``x | token``), so the label sits
    beside the span it names."""
    owner = {i: variable for variable, (begin, end) in (trace.get("spans") or {}).items() for i in range(begin, end)}
    return [f"{owner[i]} | {trace['source'][i]}" if i in owner else trace["source"][i] for i in shown]


def _trace_panel(subfig: Any, trace: dict[str, Any], matrix: str) -> Any:
    """One example: the ``matrix`` of the trace (copy-mode probability, or attention weight) per source token
    (rows) and decoding step (columns); a copy trace adds the generate mode's mass in a strip underneath. The
    fillers' tokens are labelled with their variable and bracketed in red at the left edge of the map."""
    import numpy as np

    spans = trace.get("spans")
    shown = source_window(len(trace["source"]), spans)
    steps = min(len(trace["output"]), MAX_STEPS)
    values = np.array(trace[matrix]).T[shown.start:shown.stop, :steps]  # (shown source tokens, shown steps)
    copying = "generate_mass" in trace
    if copying:
        top, bottom = subfig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [values.shape[0], 1.3]})
    else:
        top = bottom = subfig.subplots(1, 1)
    image = top.imshow(values, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    top.set_yticks(range(len(shown)), _source_labels(trace, shown))
    top.grid(False)
    for variable, (begin, end) in (spans or {}).items():
        begin, end = max(begin, shown.start) - shown.start, min(end, shown.stop) - shown.start
        if begin < end:
            top.annotate("", xy=(-0.01, 1 - begin / len(shown)), xytext=(-0.01, 1 - end / len(shown)),
                         xycoords="axes fraction", arrowprops={"arrowstyle": "-", "color": "tab:red", "lw": 3})
    cuts = ([] if len(shown) == len(trace["source"]) else
            [f"source tokens {shown.start + 1}-{shown.stop} of {len(trace['source'])}"]) + \
        ([] if steps == len(trace["output"]) else [f"steps 1-{steps} of {len(trace['output'])}"])
    cut = f" ({'; '.join(cuts)})" if cuts else ""
    verdict = "output = reference" if trace["correct"] else "output ≠ reference"
    top.set_title(f"test line {trace['line']}: {verdict}{cut}")
    top.set_ylabel("source token" + (" (copy mode)" if copying else ""))
    if copying:
        bottom.imshow(np.array(trace["generate_mass"])[None, :steps], aspect="auto", cmap="Greys", vmin=0.0,
                      vmax=1.0)
        bottom.grid(False)
        bottom.set_yticks([0], ["generate"])
    bottom.set_xticks(range(steps), trace["output"][:steps], rotation=90)
    bottom.set_xlabel("decoded output (beam top-1)" + ("" if trace["correct"] else
                                                       "\nreference: " + _wrapped(trace["reference"])))
    return image


def trace_heatmap_figure(examples: list[dict[str, Any]], title: str, matrix: str = "copy_probs") -> Any:
    """Copy-mode probability (CopyNet Figure 3; ``matrix`` copy_probs) or attention weight (``attention``) of each
    source token (rows) at each decoding step (columns), one panel per example, stacked, each as wide as the page.
    Each panel says whether its output equals the reference and, when it does not, prints the reference under it;
    a copy map's bottom strip is the generate mode's mass, so a reader sees where the decoder switches modes. At
    most 30 source tokens and 32 steps a panel."""
    heights = [0.17 * len(source_window(len(e["source"]), e.get("spans"))) + (2.2 if "generate_mass" in e else 1.9)
               for e in examples]
    fig = style.figure(sum(heights) + 0.5)
    panels = fig.subfigures(len(examples), 1, height_ratios=heights, squeeze=False)[:, 0]
    for panel, example in zip(panels, examples):
        image = _trace_panel(panel, example, matrix)
        panel.colorbar(image, ax=panel.axes, fraction=0.03, label="probability" if matrix == "copy_probs" else "weight")
    fig.suptitle(style.one_line(title))
    return fig


def copy_heatmap_figure(examples: list[dict[str, Any]], title: str) -> Any:
    """:func:`trace_heatmap_figure` of CopyNet's copy mode."""
    return trace_heatmap_figure(examples, title)


def _alignment_panel(ax: Any, matrix: list[list[float]], example: dict[str, Any], aligned: list[str],
                     title: str) -> Any:
    """One heat map: rows are target tokens labelled ``token [aligned source token]``, columns source tokens;
    gold links (when known) are ringed."""
    image = ax.imshow(matrix, aspect="auto", cmap="Greys", vmin=0.0, vmax=1.0)
    ax.grid(False)
    ax.set_xticks(range(len(example["source"])), example["source"], rotation=90)
    ax.set_yticks(range(len(example["target"])), [f"{t} [{a}]" for t, a in zip(example["target"], aligned)])
    if example.get("gold"):
        ax.scatter([i for i, _ in example["gold"]], [j for _, j in example["gold"]], s=40, facecolors="none",
                   edgecolors="tab:red", linewidths=1.0, label="gold link")
    ax.set_title(title)
    ax.set_xlabel("source token")
    ax.set_ylabel("target token [aligned]")
    return image


ALIGNMENT_KINDS = {"attention": ("attention", "attention_argmax", "attention"),
                   "prediction": ("source_prediction", "spm_words", "source-side prediction q_j")}
"""Per figure: the matrix of ``paragen align``'s output, its per-row choice, and what the panel calls it."""


def alignment_figure(examples: list[dict[str, Any]], kind: str, row: str, seed: int) -> Any:
    """004 Figure 4, one model per figure: (``kind`` attention) a row's attention over the source positions or
    (``prediction``) its source-side prediction q_j of each source token's word, per target token,
    teacher-forced on the gold target; one full-width panel per example, each naming its line. In brackets:
    the source token attention weights most, or the vocabulary word q_j ranks first."""
    matrix_key, choice_key, what = ALIGNMENT_KINDS[kind]
    heights = [0.2 * len(e["target"]) + 1.9 for e in examples]
    fig = style.figure(sum(heights) + 0.7)
    axes = fig.subplots(len(examples), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    image = None
    for ax, example in zip(axes, examples):
        aligned = [example["source"][i] for i in example[choice_key]] if kind == "attention" else example[choice_key]
        image = _alignment_panel(ax, example[matrix_key], example, aligned, f"test line {example['line']}")
    style.legend_below(fig, list(axes))  # "gold link" once, from whichever panels ring gold links; none without
    fig.colorbar(image, ax=list(axes), fraction=0.04, label="weight" if kind == "attention" else "probability")
    fig.suptitle(style.one_line(f"{what} of {row} (seed {seed})"))
    return fig


def check_same_sentences(attention: list[dict[str, Any]], prediction: list[dict[str, Any]]) -> None:
    """The two figures of a table must show the same sentences, in the same order."""
    if len(attention) != len(prediction):
        raise ValueError(f"heat maps: {len(attention)} sentences of attention but {len(prediction)} of prediction")
    for att, spm in zip(attention, prediction):
        if att["line"] != spm["line"] or att["source"] != spm["source"]:
            raise ValueError(f"heat maps: the two models' matrices are of different sentences (lines {att['line']} "
                             f"and {spm['line']})")
