"""Sets of named conventions: the built-in ones, plus those a conventions file defines.

A :class:`ConventionSet` is immutable; :data:`BUILTINS` holds the built-in conventions and
``BUILTINS.define(mapping, where)`` gives a new set with the conventions of a parsed conventions
file added (:func:`ltrconv.data.conventions_file.load_conventions` reads the file). Whatever reads
a convention's name is given the set to read it against: :func:`~ltrconv.evaluation.metrics.
evaluate` (``convention_set=``), :meth:`MetricSpec.parse <ltrconv.evaluation.spec.MetricSpec.
parse>` and :class:`~ltrconv.evaluation.scorer.NDCGScorer` (``conventions=``); a ranker is handed
the resolved metric (:meth:`ConventionSet.ranker_metric`). Two sets may give one name different
definitions: each reads it its own way.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Iterator, Mapping

from ..errors import ECHO_LIMIT, LtrconvError, printable, shown
from .conventions import (_BUILTIN, _NAME_RE, PARAMS, Convention, ConventionError, get,
                          refuse_all, reserved)

if TYPE_CHECKING:
    from .spec import MetricSpec


class ConventionSet(Mapping):
    """Conventions by name, the built-in ones first (a read-only mapping)."""

    def __init__(self, conventions: Mapping[str, Convention]):
        self._by_name = MappingProxyType(dict(conventions))

    def __getitem__(self, name: str) -> Convention:
        return self._by_name[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        added = self.defined
        return f"ConventionSet(built-in + {[c.name for c in added]!r})" if added else \
            "ConventionSet(built-in)"

    @property
    def defined(self) -> tuple[Convention, ...]:
        """The conventions this set adds to the built-in ones, in their order."""
        return tuple(c for n, c in self._by_name.items() if n not in _BUILTIN)

    def names(self) -> list[str]:
        return list(self._by_name)

    def builtin_names(self) -> list[str]:
        """The built-in conventions in their order: what ``-c all`` evaluates."""
        return [n for n in self._by_name if n in _BUILTIN]

    def get(self, spec: "str | Convention") -> Convention:  # type: ignore[override]
        """A convention by name in this set or by canonical string (a definition equal to a
        convention of the set gives that one, with its name); a Convention as is
        (:func:`ltrconv.evaluation.conventions.get` with this set)."""
        return get(spec, self)

    def metric(self, text: "str | MetricSpec") -> "MetricSpec":
        """``ndcg@K:CONVENTION`` with the convention read against this set."""
        from .spec import MetricSpec

        return MetricSpec.parse(text, conventions=self)

    def ranker_metric(self, text: str) -> "str | MetricSpec":
        """What a ranker's ``metric`` takes for ``text``: the text itself when it reads the same
        against the built-in conventions alone (the model file is then as it always was), else
        the :class:`~ltrconv.evaluation.spec.MetricSpec`, which holds the whole convention."""
        from .spec import MetricSpec

        spec = self.metric(text)
        try:
            if MetricSpec.parse(text) == spec and str(MetricSpec.parse(text)) == str(spec):
                return text
        except LtrconvError:
            pass
        return spec

    def define(self, conventions: Mapping[Any, Any], where: str) -> "ConventionSet":
        """This set with the conventions of a conventions file's ``conventions`` mapping
        (``{NAME: {key: value}}``, parsed) added in order: a later one may name an earlier one
        as ``base``. ``where`` (the file) starts every error. Built-in names are reserved in any
        letter case; a name given twice, or one this set holds, is refused. Any problem is one
        :class:`ConventionError` line, and this set is unchanged whatever happens."""
        out = dict(self._by_name)
        if not isinstance(conventions, Mapping):
            raise ConventionError(f"{where}: expected a mapping with key 'conventions'")
        for name, params in conventions.items():
            at = f"{where}: conventions.{printable(name, ECHO_LIMIT)}"
            if not isinstance(params, Mapping):
                raise ConventionError(f"{at} must be a mapping")
            if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
                raise ConventionError(f"{at}: convention name {shown(name)} must match "
                                      f"{_NAME_RE.pattern}")
            try:
                refuse_all(name)
            except ConventionError as exc:
                raise ConventionError(f"{at}: {exc}") from None
            builtin = reserved(name)
            if builtin is not None:
                whose = ("a built-in convention" if builtin == name
                         else f"the built-in convention {shown(builtin)} in other letter case")
                raise ConventionError(
                    f"{at}: {shown(name)} is the name of {whose}, reserved: a conventions file "
                    f"cannot redefine it; name yours differently, e.g. '{builtin}-custom'")
            if name in out:
                raise ConventionError(f"{at}: {shown(name)} is already defined")
            if any(not isinstance(k, str) for k in params):
                raise ConventionError(f"{at}: keys must be names, got "
                                      f"{shown(sorted(map(repr, params)))}")
            base = params.get("base")
            if isinstance(base, str) and base not in out and base in conventions:
                raise ConventionError(f"{at}: base {shown(base)} is defined further down the "
                                      "file; a convention's base must be defined above it")
            out[name] = from_mapping(params, where=at, conventions=ConventionSet(out)).with_(
                name=name)
        return ConventionSet(out)


def from_mapping(params: Mapping[str, Any], where: str = "convention",
                 conventions: ConventionSet | None = None) -> Convention:
    """A convention from a mapping (a conventions file's entry); ``base: NAME`` starts from the
    convention of that name in ``conventions`` (default: the built-in ones)."""
    params = dict(params)
    unknown_keys = set(params) - set(PARAMS) - {"base"}
    if unknown_keys:
        raise ConventionError(f"{where}: unknown key(s) {sorted(map(str, unknown_keys))}; "
                              f"allowed: base, {', '.join(PARAMS)}")
    try:
        base = Convention()
        if "base" in params:
            name = params.pop("base")
            if not isinstance(name, str):
                raise ConventionError(f"base must be a convention name, got {shown(name)}")
            base = (conventions or BUILTINS).get(name)
        return base.with_(**params)
    except ConventionError as exc:
        raise ConventionError(f"{where}: {exc}") from None


BUILTINS = ConventionSet(_BUILTIN)
"""The built-in conventions alone."""

__all__ = ["BUILTINS", "ConventionSet", "from_mapping", "get"]
