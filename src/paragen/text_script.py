"""Which writing system a text is in, so metrics never tokenise Chinese as if it were English.

rouge-score's word tokenizer deletes every CJK character (a Chinese system scores 0.00), and
sacrebleu's 13a tokenizer keeps an unsegmented Chinese sentence as one token (BLEU near 0).
Both are silent; :func:`cjk_share` lets the scorer pick character units, or refuse, instead.
"""

from __future__ import annotations

from typing import Iterable

CJK_RANGES: tuple[tuple[int, int], ...] = (
    (0x3040, 0x30FF),  # Hiragana, Katakana
    (0x3400, 0x4DBF),  # CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),  # CJK Unified Ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK Compatibility Ideographs
    (0x20000, 0x2FA1F),  # Extensions B-F and the supplement
)
CJK_THRESHOLD = 0.3
"""Text counts as CJK when at least this share of its non-space characters are CJK (a stray name does not)."""


def is_cjk(char: str) -> bool:
    code = ord(char)
    return any(low <= code <= high for low, high in CJK_RANGES)


def cjk_share(lines: Iterable[str]) -> float:
    """Share of non-space characters that are CJK, 0.0 for empty text."""
    total = cjk = 0
    for line in lines:
        for char in line:
            if not char.isspace():
                total += 1
                cjk += is_cjk(char)
    return cjk / total if total else 0.0



def unit_by_script(lines: Iterable[str], cjk_unit: str, word_unit: str) -> tuple[str, bool]:
    """The unit ``auto`` stands for on these lines (the references): ``cjk_unit`` on CJK text, else ``word_unit``;
    and whether the text is CJK. One rule for every scorer (``paragen score``, ``paragen evaluate``, validation), so
    a metric is on the same unit wherever it is computed: characters for Chinese, words for English."""
    cjk = cjk_share(lines) >= CJK_THRESHOLD
    return (cjk_unit if cjk else word_unit), cjk
