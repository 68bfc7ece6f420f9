"""ltrconv: the NDCG conventions of the public learning-to-rank tools, made explicit."""

from .conventions import Convention, get as get_convention
from .data import Dataset, read_letor
from .metrics import Evaluation, MetricSpec, NDCGScorer, evaluate, evaluate_dataset

__all__ = [
    "Convention", "Dataset", "Evaluation", "MetricSpec", "NDCGScorer",
    "evaluate", "evaluate_dataset", "get_convention", "read_letor",
]
__version__ = "0.1.0"
