"""``paragen system --name NAME``: the test output of a row that needs no training, from params.yaml.

The output goes where a decoder would write it (``runs/<name>/test.hyp``), so ``paragen evaluate``
and the tables treat it like any trained row.
"""

from __future__ import annotations

import logging
from pathlib import Path

from paragen import artifacts
from paragen.atomic import atomic_open
from paragen.config import ConfigError, ParagenConfig
from paragen.data.corpus import check_aligned, read_lines, reference_files
from paragen.simplification import systems
from paragen.simplification.paraphrase import Paraphraser
from paragen.simplification.ppdb import load_rules

log = logging.getLogger(__name__)


def system_output(config: ParagenConfig, name: str, split: str = "test") -> list[str]:
    """A system's output on ``split`` (an identity system has one on each of its dataset's test splits,
    :meth:`~paragen.config.ParagenConfig.splits_of`; the others on test alone)."""
    if name not in config.systems:
        raise ConfigError(f"unknown system {name!r}; allowed values: {sorted(config.systems)}")
    spec = config.systems[name]
    directory = artifacts.experiment_data(config, name).directory
    source_path = Path(directory) / f"{split}.src"
    sources = read_lines(source_path)
    if spec.method == "identity" and spec.vocabulary_only:
        from paragen.data.vocabulary import UNK, Vocabulary

        vocabulary = Vocabulary.load(artifacts.output_vocabulary(config, spec.dataset))
        return systems.identity_in_vocabulary(sources, set(vocabulary.itos), UNK)
    if spec.method == "identity":
        return systems.identity(sources)
    if spec.method == "skip":
        return systems.skip(sources, spec.probability, spec.seed)
    if spec.method == "oracle":  # leave-one-out: the file holds reference 0, the first of the outputs it scores
        references = reference_files(directory, "test")
        which = 0 if spec.reference == "leave_one_out" else spec.reference
        if which >= len(references):
            raise ConfigError(f"systems.{name}.reference: {spec.reference}, but {directory} holds references "
                              f"0..{len(references) - 1}")
        return systems.oracle([read_lines(r) for r in references], which)
    assert spec.rules is not None  # validated: paraphrase has rules
    rules_spec = config.rules[spec.rules]
    rules = load_rules(rules_spec.path, rules_spec.format, spec.granularity)
    log.info("%s: %d %s rules from %s", name, len(rules), spec.granularity, rules_spec.path)
    if spec.input == "source":
        inputs = sources
    else:
        input_path = artifacts.hyp_path(spec.input)
        inputs = read_lines(input_path)
        check_aligned(input_path, len(inputs), source_path, len(sources))
    return systems.paraphrase(inputs, Paraphraser(rules))


def write_system_output(config: ParagenConfig, name: str) -> list[Path]:
    """The system's output files, one per split it is scored on, each written atomically."""
    if name not in config.systems:
        raise ConfigError(f"unknown system {name!r}; allowed values: {sorted(config.systems)}")
    paths = []
    for split in config.splits_of(name):
        lines = system_output(config, name, split)
        paths.append(Path(artifacts.hyp_path(name, split)))
        with atomic_open(paths[-1]) as handle:
            handle.writelines(line + "\n" for line in lines)
    return paths
