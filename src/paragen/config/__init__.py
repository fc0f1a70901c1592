"""Typed, validated view of ``params.yaml``: the single source of truth.

Every stage of both workflow engines is derived from this object (see :mod:`paragen.pipeline.plan`), so a typo in
``params.yaml`` must stop the run at load time with the offending key and the allowed values, never half-way
through a training run. One module per concern: :mod:`~paragen.config.base` (strict models, shared types, safe
names), :mod:`~paragen.config.datasets`, :mod:`~paragen.config.local_data` (your own files), :mod:`~paragen.config.models`, :mod:`~paragen.config.runs` (training,
decoding, experiments, rules, systems), :mod:`~paragen.config.tables`, :mod:`~paragen.config.project` (the whole
file and its cross-checks) and :mod:`~paragen.config.loading` (reading and validating it).
"""

from paragen.config.base import (  # noqa: F401
    Architecture, AttentionScore, ConfigError, Fraction, IntRange, Name, PositiveInt, SAFE_NAME, WeanScore)
from paragen.config.datasets import (  # noqa: F401
    AlignmentFilter, DATASET_KINDS, Evaluation, HeadlineSyntheticDataset, RealDataset, SyntheticDataset,
    VocabConfig)
from paragen.config.local_data import LocalDataset, LocalFile, LocalSplit  # noqa: F401
from paragen.config.models import (  # noqa: F401
    DmassConfig, ModelConfig, PretrainedEmbeddings, RECURRENT_ONLY, RawFile, SourcePredictionConfig,
    TRANSFORMER_ONLY)
from paragen.config.runs import (  # noqa: F401
    CriticConfig, DecodingConfig, ExperimentConfig, RuleFileConfig, SystemConfig, TrainingConfig, rules_used)
from paragen.config.tables import (  # noqa: F401
    AlignedPairsTable, AlignmentFigure, Comparison, OddgenFigure, TableConfig)
from paragen.config.project import ParagenConfig  # noqa: F401
from paragen.config.loading import load_config, override_source, parse_config, read_params  # noqa: F401
