"""The scorer registry: every scorer by name, built by one function, rebuilt from its spec.

A name reaches a scorer in one of three ways (:func:`get_entry`):

* a **built-in**: its short name (``"content-similarity"``) or its id
  (``"content-similarity-scorer"``). Each scorer module declares its :class:`ScorerEntry`
  once, as ``ENTRY``, next to its factory;
* a scorer another package registers under the entry-point group ``scorekit.scorers``; the
  entry point loads a ``ScorerEntry`` or a factory, and its name is the entry point's::

      # the other package's pyproject.toml
      [project.entry-points."scorekit.scorers"]
      brevity = "my_scorers.brevity:create_brevity_scorer"

* ``module:factory``: a dotted module path, then an attribute that is a ``ScorerEntry`` or a
  factory (``my_scorers.brevity:create_brevity_scorer``).

:func:`build_scorer` builds any of them from keyword options: LLM scorers get their judge from
``model=``, and a context scorer given no context judges each item's own
(:func:`scorekit.inputs.retrieval_context.item_context`). The scorer it returns carries a
:class:`ScorerSpec` (the name, the options and the judge's :class:`~scorekit.judge.spec.JudgeSpec`)
and pickles as that spec, so it is built again on the other side: that is how a scorer reaches a
worker process.

Nothing is loaded on import (style.md rule 13): the built-in modules are imported, and the
entry points read, by the first lookup that needs them. A built-in name wins over an entry
point of the same name.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import difflib
import functools
import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any

from pydantic import BaseModel

from scorekit.errors import ConfigError, ScorekitError
from scorekit.import_path import import_path
from scorekit.inputs.retrieval_context import item_context
from scorekit.judge.judge import Judge
from scorekit.judge.spec import JudgeSpec
from scorekit.pipeline import Scorer
from scorekit.scorers.entry import ScorerEntry, ScorerKind, ScorerOption, keyword_parameters

__all__ = [
    "BUILTIN_PACKAGES",
    "ENTRY_POINT_GROUP",
    "SCORERS",
    "ScorerEntry",
    "ScorerKind",
    "ScorerOption",
    "ScorerSpec",
    "build_scorer",
    "builtin_modules",
    "get_entry",
    "get_scorer_entry",
    "list_scorers",
    "score_ceiling",
]

ENTRY_POINT_GROUP = "scorekit.scorers"
"""The entry-point group other packages register their scorers under."""

BUILTIN_PACKAGES = ("scorekit.scorers", "scorekit.checks")
"""The packages holding the built-in scorers. Every module of these packages (and each package
itself) that declares ``ENTRY`` (a :class:`ScorerEntry`) or ``ENTRIES`` (a tuple of them) adds
its scorers; a new scorer module is registered by declaring its entry, nowhere else."""

_SKIPPED = frozenset({"scorekit.scorers.registry"})
"""Modules of those packages never imported by the discovery (the registry itself)."""

_NEEDS_JUDGE = (
    "scorer {name!r} needs a judge: pass --model provider/name, set SCOREKIT_MODEL, or give "
    "model: in the config"
)


def _takes_any_keyword(factory: Callable[..., Any]) -> bool:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return True
    return any(param.kind is param.VAR_KEYWORD for param in parameters)


def _first_line(factory: Callable[..., Any]) -> str:
    doc = inspect.getdoc(factory) or ""
    return doc.strip().splitlines()[0] if doc.strip() else ""


def _entry_of(value: Any, name: str, where: str) -> ScorerEntry:
    """The entry a loaded object stands for, named ``name``."""
    if isinstance(value, ScorerEntry):
        return value if value.name == name else dataclasses.replace(value, name=name)
    if callable(value):
        takes = {param.name for param in keyword_parameters(value)}
        return ScorerEntry(
            name=name,
            scorer_id="",
            factory=value,
            kind="llm" if "model" in takes else "code",
            summary=_first_line(value),
        )
    raise ConfigError(
        f"{where} is neither a ScorerEntry nor a scorer factory ({type(value).__name__})",
        field="scorer",
    )


@functools.cache
def builtin_modules() -> tuple[str, ...]:
    """The modules of :data:`BUILTIN_PACKAGES` that declare built-in scorers, in listing order.

    Each package and its modules are imported (the first call only) and kept when they declare
    ``ENTRY`` or ``ENTRIES``: scorer modules by name, code scorers first, then each package
    whose own ``__init__`` declares ``ENTRIES`` (the checks).
    """
    declaring: list[tuple[int, str]] = []
    for package_name in BUILTIN_PACKAGES:
        package = importlib.import_module(package_name)
        if _declares(package):
            declaring.append((2, package_name))
        for info in pkgutil.iter_modules(package.__path__, prefix=f"{package_name}."):
            if info.name in _SKIPPED or info.ispkg:
                continue
            module = importlib.import_module(info.name)
            if _declares(module):
                entries = _entries(module)
                declaring.append((0 if entries[0].kind == "code" else 1, info.name))
    return tuple(name for _, name in sorted(declaring))


def _declares(module: ModuleType) -> bool:
    return hasattr(module, "ENTRY") or hasattr(module, "ENTRIES")


def _entries(module: ModuleType) -> tuple[ScorerEntry, ...]:
    entries: tuple[object, ...] = getattr(module, "ENTRIES", None) or (module.ENTRY,)
    for entry in entries:
        if not isinstance(entry, ScorerEntry):
            raise TypeError(f"{module.__name__}: ENTRY / ENTRIES must be ScorerEntry values")
    return entries  # type: ignore[return-value]


@functools.cache
def _builtins() -> dict[str, ScorerEntry]:
    found: dict[str, ScorerEntry] = {}
    for module_name in builtin_modules():
        for entry in _entries(importlib.import_module(module_name)):
            for name in (entry.name, *entry.aliases):
                if name in found:
                    raise TypeError(f"two built-in scorers are named {name!r}")
                found[name] = entry
    return found


def _canonical() -> dict[str, ScorerEntry]:
    """The built-ins by their short names only (aliases left out), in listing order."""
    return {name: entry for name, entry in _builtins().items() if name == entry.name}


class _BuiltinTable(Mapping[str, ScorerEntry]):
    """The built-in scorers by short name, in listing order; read on first use."""

    def __getitem__(self, name: str) -> ScorerEntry:
        return _canonical()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_canonical())

    def __len__(self) -> int:
        return len(_canonical())

    def __repr__(self) -> str:
        return f"SCORERS({', '.join(_canonical())})"


SCORERS: Mapping[str, ScorerEntry] = _BuiltinTable()
"""Short name → entry of the built-in scorers, in listing order (entry points not included)."""


@functools.cache
def _entry_points() -> dict[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(point.name, point)
    return found


@functools.cache
def _plugin(name: str) -> ScorerEntry:
    point = _entry_points()[name]
    try:
        value = point.load()
    except Exception as exc:  # a broken plugin: say which, whatever it raised
        raise ConfigError(
            f"scorer {name!r}: cannot load entry point {point.value!r} "
            f"({type(exc).__name__}: {exc})",
            field="scorer",
        ) from exc
    return _entry_of(value, name, f"entry point {name!r} ({point.value})")


def _from_path(name: str) -> ScorerEntry:
    value = import_path(name, kind="scorer", field="scorer")
    return _entry_of(value, name, f"scorer {name!r}")


def get_entry(name: str) -> ScorerEntry:
    """Return the entry of a scorer name.

    Args:
        name: a built-in short name (``"faithfulness"``) or id (``"faithfulness-scorer"``),
            the name of an entry point in the ``scorekit.scorers`` group (or the id of the
            entry it loads), or ``"module:factory"`` (an attribute that is a ``ScorerEntry``
            or a factory; a factory gets an entry of kind ``"llm"`` when it takes ``model``,
            else ``"code"``, with ``scorer_id=""``).

    Returns:
        The entry; its ``name`` is the name it was found by (an entry point's name, the
        ``module:factory`` text), so ``get_entry(entry.name)`` finds it again. A built-in's
        is its short name.

    Raises:
        ConfigError: (``field="scorer"``) an unknown name, with the closest known names; a
            ``module:factory`` that cannot be imported or found; an entry point that fails
            to load or loads neither an entry nor a factory.

    Example:
        >>> get_entry("content-similarity-scorer").name
        'content-similarity'
    """
    if not isinstance(name, str) or not name:
        raise ConfigError(f"a scorer name must be a non-empty string, not {name!r}", field="scorer")
    builtins = _builtins()
    if name in builtins:
        return builtins[name]
    for entry in builtins.values():
        if entry.scorer_id == name:
            return entry
    if ":" in name:
        return _from_path(name)
    points = _entry_points()
    if name in points:
        return _plugin(name)
    for point_name in points:
        try:
            plugin = _plugin(point_name)
        except ConfigError:  # a broken plugin is reported when asked for by its name
            continue
        if plugin.scorer_id == name:
            return plugin
    known = [*_canonical(), *(point for point in points if point not in builtins)]
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise ConfigError(
        f"unknown scorer {name!r}; known scorers: {', '.join(known)}.{hint}", field="scorer"
    )


def score_ceiling(scorer: Scorer) -> float | None:
    """The highest score a built-in scorer can give: its ``scale`` (default 1), else 1.

    Args:
        scorer: any scorer.

    Returns:
        The ceiling for a scorer built by name from a built-in (its ``spec`` names one), or
        ``None`` when it is not known (a scorer made with ``create_scorer``, a plugin's).
    """
    spec = getattr(scorer, "spec", None)
    if not isinstance(spec, ScorerSpec):
        return None
    try:
        entry = get_entry(spec.name)
    except ConfigError:
        return None
    if not getattr(entry.factory, "__module__", "").startswith("scorekit."):
        return None
    scale = {p.name: p for p in keyword_parameters(entry.factory)}.get("scale")
    if scale is None:
        return 1.0
    value = spec.options.get("scale", scale.default)
    return float(value) if isinstance(value, (int, float)) else None


get_scorer_entry = get_entry
"""The same function as :func:`get_entry`, under its older name."""


def list_scorers() -> list[ScorerEntry]:
    """Every registered scorer: the built-ins in listing order, then entry points by name.

    Raises:
        ConfigError: an entry point fails to load.
    """
    builtins = _builtins()
    return [
        *_canonical().values(),
        *(_plugin(name) for name in sorted(_entry_points()) if name not in builtins),
    ]


def _check_options(name: str, entry: ScorerEntry, options: Mapping[str, Any]) -> None:
    parameters = keyword_parameters(entry.factory)
    takes = [param.name for param in parameters]
    if not _takes_any_keyword(entry.factory):
        for option in options:
            if option not in takes:
                close = difflib.get_close_matches(option, takes, n=3)
                hint = f" Did you mean {', '.join(close)}?" if close else ""
                raise ConfigError(
                    f"scorer {name!r} has no option {option!r}; its options: "
                    f"{', '.join(takes) or 'none'}.{hint}",
                    field=option,
                )
    for param in parameters:
        if param.default is inspect.Parameter.empty and param.name not in options:
            if param.name == "model":
                raise ConfigError(_NEEDS_JUDGE.format(name=name), field="model")
            raise ConfigError(f"scorer {name!r} needs the option {param.name!r}", field=param.name)


def build_scorer(name: str, /, **options: Any) -> Scorer:
    """Build a registered scorer by name, with its keyword options.

    Args:
        name: any name :func:`get_entry` accepts (short name, id, entry-point name,
            ``module:factory``).
        **options: the factory's keyword options (snake_case, docs/scorers.md). An LLM
            scorer needs ``model``: a ``"provider/model"`` string, a
            :class:`~scorekit.judge.judge.Judge`, a :class:`~scorekit.judge.model.JudgeModel`,
            or a :class:`~scorekit.judge.spec.JudgeSpec` (built here).
            A context scorer (its factory takes ``context_extractor``) given neither
            ``context`` nor ``context_extractor`` gets ``context_extractor=item_context``: it
            judges each item's own context.

    Returns:
        The scorer, carrying a :class:`ScorerSpec` (so it pickles) unless its judge cannot be
        described as data (a ``JudgeModel`` object, or a ``Judge`` around one).

    Raises:
        ConfigError: an unknown name (``field="scorer"``); an LLM scorer without ``model``
            (``field="model"``); an option the factory does not take or a required one
            missing (``field`` names it, with the closest option names); any error of the
            factory's own validation.

    Example:
        >>> scorer = build_scorer("content-similarity", ignore_case=False)
        >>> scorer.run_sync(input="night", output="nacht").score
        0.25
        >>> scorer.spec
        ScorerSpec(name='content-similarity', options={'ignore_case': False}, judge=None)
    """
    entry = get_entry(name)
    kwargs = dict(options)
    if entry.kind == "llm" and kwargs.get("model") is None:
        raise ConfigError(_NEEDS_JUDGE.format(name=name), field="model")
    _check_options(name, entry, kwargs)
    takes = {param.name for param in keyword_parameters(entry.factory)}
    if "context_extractor" in takes and not {"context", "context_extractor"} & kwargs.keys():
        kwargs["context_extractor"] = item_context
    judge: JudgeSpec | None = None
    describable = True
    model = kwargs.get("model")
    if isinstance(model, str):
        judge = JudgeSpec(model=model, instructions=None, options={})
    elif isinstance(model, JudgeSpec):
        judge = model
        kwargs["model"] = model.build()
    elif isinstance(model, Judge):
        judge = model.spec
        describable = judge is not None
    elif model is not None:
        describable = False  # a JudgeModel object: no data rebuilds it elsewhere
    try:
        scorer = entry.factory(**kwargs)
    except ScorekitError:
        raise  # the factory's own validation (ConfigError naming the option), a judge error
    except Exception as exc:  # a user's factory that breaks is their bug, told as such
        raise ConfigError(
            f"scorer {name!r}: its factory raised {type(exc).__name__}: {exc}", field="scorer"
        ) from exc
    if not isinstance(scorer, Scorer):
        raise ConfigError(
            f"the factory of scorer {name!r} returned {type(scorer).__name__}, not a Scorer",
            field="scorer",
        )
    if not describable:
        return scorer
    given = {key: value for key, value in options.items() if key != "model"}
    # a copy: the caller may change its lists afterwards; the scorer's twin must not. An
    # option that cannot be copied (it holds a lock) is kept as given.
    with contextlib.suppress(Exception):
        given = copy.deepcopy(given)
    return scorer.with_spec(ScorerSpec(name, given, judge))


def _json_value(value: Any, option: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, Mapping):
        return {str(key): _json_value(item, option) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(item, option) for item in value]
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _json_value(dataclasses.asdict(value), option)
    if callable(value):
        module = getattr(value, "__module__", None)
        qualname = getattr(value, "__qualname__", "")
        if module and qualname and "<" not in qualname:
            return f"{module}:{qualname}"
        raise TypeError(
            f"option {option!r}: {value!r} is not a module-level function, so it cannot be "
            "written as module:qualname (nor pickled)"
        )
    raise TypeError(f"option {option!r}: a {type(value).__name__} is not JSON data")


@dataclass(frozen=True)
class ScorerSpec:
    """What rebuilds a scorer in another process: its name, options and judge, as data.

    :func:`build_scorer` attaches one to every scorer it builds; a scorer with a spec pickles
    as it. The options must pickle: plain data, or module-level functions (such as
    :func:`~scorekit.inputs.retrieval_context.item_context`), which pickle by reference.

    Attributes:
        name: what was given to :func:`build_scorer` (short name, id, entry-point name or
            ``module:factory``).
        options: the keyword options as given, without ``model`` (the default
            ``context_extractor`` is not among them: building applies the rule again).
        judge: the judge as given to :func:`build_scorer` (before the scorer applied its
            own instructions), or ``None`` for a code scorer.

    Example:
        >>> judge = JudgeSpec(model="test/judge", instructions=None, options={})
        >>> scorer = ScorerSpec("faithfulness", {"scale": 10}, judge).build()
        >>> scorer.id, scorer.spec == ScorerSpec("faithfulness", {"scale": 10}, judge)
        ('faithfulness-scorer', True)
    """

    name: str
    options: Mapping[str, Any] = field(default_factory=dict)
    judge: JudgeSpec | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ConfigError("a ScorerSpec needs a non-empty scorer name", field="name")
        if not isinstance(self.options, Mapping) or not all(
            isinstance(key, str) for key in self.options
        ):
            raise ConfigError("ScorerSpec options must map option names to values", field="options")
        if "model" in self.options:
            raise ConfigError("a ScorerSpec holds its judge in judge=, not options", field="model")
        if self.judge is not None and not isinstance(self.judge, JudgeSpec):
            raise ConfigError(
                f"ScorerSpec judge must be a JudgeSpec, not {type(self.judge).__name__}",
                field="judge",
            )
        # a copy: the caller's dict may change after the spec is made
        object.__setattr__(self, "options", dict(self.options))

    def build(self) -> Scorer:
        """Build the scorer (it carries a spec equal to this one).

        Raises:
            ConfigError: as :func:`build_scorer`.
        """
        options = dict(self.options)
        if self.judge is not None:
            options["model"] = self.judge.build()
        return build_scorer(self.name, **options)

    def to_dict(self) -> dict[str, Any]:
        """The spec as JSON data: functions as ``"module:qualname"``, dataclasses as dicts.

        It records the scorer (a run's configuration, say); it is not read back, since a
        function written as text looks like any other string.

        Raises:
            TypeError: an option is neither JSON data nor a module-level function.
        """
        return {
            "name": self.name,
            "options": {key: _json_value(value, key) for key, value in self.options.items()},
            "judge": self.judge.to_dict() if self.judge is not None else None,
        }
