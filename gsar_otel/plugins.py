"""Plugins: judge backends, redaction of exported text, and result handlers, through pluggy.

A plugin is any object (often a module) with functions marked ``@hookimpl``::

    from gsar_otel.plugins import hookimpl

    @hookimpl
    def gsar_redact(text: str, kind: str) -> str | None:
        return EMAIL.sub("<email>", text)

Register it in code with :func:`register`, or ship it in a distribution under the entry-point
group ``gsar_otel`` (``[project.entry-points.gsar_otel] myplugin = "mypkg.gsar_plugin"``); entry
points are loaded once, on first use. A plugin that fails to load is skipped with a warning.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import TYPE_CHECKING, Any, Final

import pluggy

from gsar_otel import semconv as sc
from gsar_otel.semconv import PLUGIN_PROJECT

if TYPE_CHECKING:
    from gsar_otel.core.protocol import Judge
    from gsar_otel.core.result import GSARResult

logger = logging.getLogger(__name__)

hookspec: Final = pluggy.HookspecMarker(PLUGIN_PROJECT)
hookimpl: Final = pluggy.HookimplMarker(PLUGIN_PROJECT)
"""Mark a plugin function as an implementation of one of the hooks below."""

ENTRY_POINT_GROUP: Final = PLUGIN_PROJECT


class GSARHookSpecs:
    """The hooks a gsar-otel plugin can implement."""

    @hookspec(firstresult=True)
    def gsar_make_judge(self, name: str, model: str | None) -> Judge | None:
        """Build the judge called ``name`` (with ``model`` if given), or return None.

        The first plugin that returns a judge wins.
        """

    @hookspec
    def gsar_judge_names(self) -> Sequence[str]:  # type: ignore[empty-body]
        """The judge names this plugin can build (listed in error messages and ``gsar --help``)."""

    @hookspec
    def gsar_redact(self, text: str, kind: str) -> str | None:
        """Mask ``text`` before it is exported; return the masked text, or None to keep it.

        ``kind`` says what the text is: ``claim``, ``synthesis``, ``explanation`` or ``name``
        (an agent, run span or tool name, exported whether content capture is on or off).
        Every plugin runs in turn, each on the previous one's output.
        """

    @hookspec
    def gsar_on_result(self, result: GSARResult, function: str) -> None:
        """Called after each evaluation of a ``@grounded`` function named ``function``.

        Errors are logged and swallowed: a handler never breaks the host application.
        """


_lock = threading.Lock()
_manager: pluggy.PluginManager | None = None


def plugin_manager() -> pluggy.PluginManager:
    """The process's plugin manager; entry-point plugins are loaded on the first call."""
    global _manager
    manager = _manager
    if manager is not None:
        return manager
    with _lock:
        if _manager is None:
            created = pluggy.PluginManager(PLUGIN_PROJECT)
            created.add_hookspecs(GSARHookSpecs)
            _load_entry_points(created)
            _manager = created
        return _manager


def _load_entry_points(manager: pluggy.PluginManager) -> None:
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if manager.get_plugin(entry_point.name) is not None:
            continue
        try:
            manager.register(entry_point.load(), name=entry_point.name)
        except Exception as error:  # one broken plugin must not break the host
            logger.warning("skipping gsar_otel plugin %r: %s: %s", entry_point.name,
                           type(error).__name__, error)


def register(plugin: object, name: str | None = None) -> str:
    """Register ``plugin`` (an object or module with ``@hookimpl`` functions).

    Returns:
        The name it was registered under (pass it or the object to :func:`unregister`).

    Raises:
        ValueError: the plugin or its name is already registered, or a hook is misspelt.
    """
    manager = plugin_manager()
    registered = manager.register(plugin, name=name)
    if registered is None:
        raise ValueError(f"plugin {name or plugin!r} is blocked and was not registered")
    manager.check_pending()
    return registered


def unregister(plugin: object | None = None, *, name: str | None = None) -> None:
    """Remove a plugin (by object or by name); a no-op when it is not registered."""
    manager = plugin_manager()
    if plugin is not None and not manager.is_registered(plugin):
        return
    if plugin is None and (name is None or manager.get_plugin(name) is None):
        return
    manager.unregister(plugin=plugin, name=name)


def plugin_judge(name: str, *, model: str | None = None) -> Judge | None:
    """The judge a plugin builds for ``name``, or None when no plugin answers to it."""
    judge: Judge | None = plugin_manager().hook.gsar_make_judge(name=name, model=model)
    return judge


def plugin_judge_names() -> list[str]:
    """Judge names that installed plugins offer, sorted, without duplicates."""
    names: set[str] = set()
    for offered in plugin_manager().hook.gsar_judge_names():
        names.update(str(n).strip().lower() for n in offered or () if str(n).strip())
    return sorted(names)


def _implementations(hook_name: str) -> list[Callable[..., Any]]:
    """The implementations of a hook in pluggy's call order, as plain callables."""
    caller = getattr(plugin_manager().hook, hook_name)
    calls: list[Callable[..., Any]] = []
    for impl in reversed(caller.get_hookimpls()):
        function, argnames = impl.function, impl.argnames

        # The bound names are underscored: a hook argument may itself be called ``function``.
        def call(*, _function: Callable[..., Any] = function,
                 _argnames: tuple[str, ...] = argnames, **kwargs: Any) -> Any:
            return _function(*(kwargs[a] for a in _argnames))

        calls.append(call)
    return calls


def has_redactors() -> bool:
    """True when a plugin implements ``gsar_redact``."""
    return bool(plugin_manager().hook.gsar_redact.get_hookimpls())


def redact(text: str, kind: str) -> str | None:
    """Run ``text`` through every ``gsar_redact`` plugin in turn.

    Returns:
        The text to export, or None when a redactor failed or returned something that is not a
        string (redaction fails closed: nothing is exported).
    """
    current = text
    for call in _implementations("gsar_redact"):
        try:
            masked = call(text=current, kind=kind)
        except Exception:  # a broken redactor hides the text, never the call
            logger.debug("gsar_redact plugin failed; the %s text is not exported", kind,
                         exc_info=True)
            return None
        if masked is None:
            continue
        if not isinstance(masked, str):
            logger.debug("gsar_redact plugin returned %s, not a str; the %s text is not exported",
                         type(masked).__name__, kind)
            return None
        current = masked
    return current


def notify_result(result: GSARResult, function: str) -> None:
    """Call every ``gsar_on_result`` plugin; each plugin's error is logged and swallowed."""
    for call in _implementations("gsar_on_result"):
        try:
            call(result=result, function=function)
        except Exception:  # result handlers never break the host
            logger.debug("gsar_on_result plugin failed for %s", function, exc_info=True)


def reset_plugin_manager() -> None:
    """Drop the plugin manager (and every registered plugin); the next use reloads entry points."""
    global _manager
    with _lock:
        _manager = None


def mask(text: str, kind: str, values: tuple[str, ...] | None = None) -> str | None:
    """``text`` as it may leave the process (span, report, log, error message): lone surrogates
    replaced (no encoder can write them), the built-in secret masking of
    :mod:`gsar_otel.core.redact` (``values``: the secret environment values, read now when
    None), then the ``gsar_redact`` plugins. None when a plugin failed (fails closed)."""
    from gsar_otel.core.redact import redact_text, replace_lone_surrogates, secret_values

    masked = redact_text(replace_lone_surrogates(text)[0],
                         secret_values() if values is None else values)
    return redact(masked, kind) if has_redactors() else masked


def mask_name(name: str) -> str:
    """A name read from telemetry (an agent, a run span, a tool) as it may be exported, content
    capture on or off: :func:`mask` of kind ``name`` (a plain identifier stays as it is, a
    secret in it reads ``[REDACTED]``); the whole name ``[REDACTED]`` when a plugin failed."""
    from gsar_otel.core.redact import REDACTED

    masked = mask(name, sc.REDACT_KIND_NAME)
    return REDACTED if masked is None else masked
