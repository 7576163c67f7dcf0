"""Where bots live: resolving a bot reference to a :class:`BotSpec`, and ``submit``.

A bot reference is one of

* a registered name: ``bots/<name>.py``, ``bots/<name>/`` or an entry of ``bots/registry.yaml``;
* a path to a Python module holding an :class:`arena.sdk.Bot` subclass (run by the kit's
  runner);
* a path to a directory with a ``bot.yaml`` manifest (``name``; ``command``, a list of
  arguments run in the bot's own directory, for any language, or ``module``, a Python file of
  the directory; optional metadata ``author``, ``version``, ``last_read_page``,
  ``last_book_finished``), or with a ``bot.py`` and no manifest.

The referee never imports bot code: module metadata is read from the source with :mod:`ast`
and manifests with a safe loader (:mod:`arena.common.yamlfile`). A bot's version is the content hash
of its files, so the same name with edited files is a different version in the results. A bot
entered with options (:meth:`BotSpec.with_options`, e.g. a search budget from a tournament
spec) plays differently, so its version also names them: ``<files>+o<options>``.

The package: :mod:`~arena.registry.botspec` (the spec and the checks of names and options),
:mod:`~arena.registry.manifest` (a bot's files -> spec), :mod:`~arena.registry.version_files`
(whether they are still its version's, and the copy an update kept),
:mod:`~arena.registry.startup` (why a command would not start), :mod:`~arena.registry.catalog`
(the bots directory, resolving), :mod:`~arena.registry.submission` (``submit``, and
``unregister``, its undoing) with :mod:`~arena.registry.staging` (its copy staged and put in
place) and :mod:`~arena.registry.copying` (a bot's files copied through descriptors); a bot's
packages: :mod:`~arena.registry.requirements` (what a ``bot.yaml`` asks for),
:mod:`~arena.registry.environments` (their environments, each built by the steps of
:mod:`~arena.registry.build_steps`), :mod:`~arena.registry.interpreters`
(the Python one is made with), :mod:`~arena.registry.envusage` (which bots use which) and
:mod:`~arena.registry.pipmessages` (pip's failure in one line).
"""

from __future__ import annotations

from arena.registry.botspec import (
    MANIFEST,
    METADATA_KEYS,
    PYTHON,
    REGISTRY_FILE,
    RUNNER,
    SAMPLE_BOTS_DIR,
    VERSIONS_DIR,
    BotSpec,
    default_bots_dir,
    option_problems,
    options_digest,
)
from arena.registry.catalog import (
    expanded,
    kept_versions,
    list_bots,
    registered_names,
    require_named_options,
    resolve,
    resolve_named,
    someone_elses,
    submitted,
    survey_bots,
)
from arena.registry.manifest import content_version, module_metadata, spec_from_path
from arena.registry.startup import command_problem
from arena.registry.submission import (
    ComplianceReport,
    KeptCopy,
    Removal,
    needed_by,
    orphaned_versions,
    remove_orphaned,
    submit,
    submit_version,
    twin_entries,
    unregister,
)
from arena.registry.version_files import files_changed, files_now, files_unchanged, kept_copy

__all__ = [
    "MANIFEST",
    "METADATA_KEYS",
    "PYTHON",
    "REGISTRY_FILE",
    "RUNNER",
    "Removal",
    "SAMPLE_BOTS_DIR",
    "VERSIONS_DIR",
    "BotSpec",
    "ComplianceReport",
    "KeptCopy",
    "command_problem",
    "content_version",
    "default_bots_dir",
    "expanded",
    "files_changed",
    "files_now",
    "files_unchanged",
    "kept_copy",
    "kept_versions",
    "list_bots",
    "module_metadata",
    "needed_by",
    "option_problems",
    "options_digest",
    "orphaned_versions",
    "registered_names",
    "remove_orphaned",
    "require_named_options",
    "resolve",
    "resolve_named",
    "someone_elses",
    "spec_from_path",
    "submit",
    "submit_version",
    "twin_entries",
    "submitted",
    "survey_bots",
    "unregister",
]
