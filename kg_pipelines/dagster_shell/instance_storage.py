"""Where the Dagster instance of a data dir keeps its runs, event log, schedules and sensor ticks.

The embedded default is SQLite under ``<data-dir>/dagster_home``. ``kg-pipelines init
--dagster-storage postgresql://USER@HOST:PORT/DB`` (or the environment variable
``KG_DAGSTER_STORAGE`` holding the same URL, read by every CLI command that sets up the instance)
writes a ``storage: postgres`` block into the home's ``dagster.yaml``; from then on every CLI run,
sensor, schedule and the UI of that data dir read and write that database (``dagster-postgres``).
``--dagster-storage sqlite`` goes back to the default.

The block is text between two marker lines at the end of ``dagster.yaml``, so the template's
comments stay as they are and the block is replaced, never repeated. The URL is written as given:
keep the password out of it (``~/.pgpass`` or trust auth on loopback) if the data dir is shared.
It is stored with the psycopg2 driver named (``postgresql+psycopg2://``), the driver
``dagster-postgres`` installs.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import yaml

from kg_pipelines.stores.files import write_text_atomically

ENV_VAR = "KG_DAGSTER_STORAGE"
DEFAULT = "sqlite"
_BEGIN = "# --- kg-pipelines: instance storage (written by `kg-pipelines init --dagster-storage`) ---"
_END = "# --- end of instance storage ---"
# SQLAlchemy 2.1 reads a bare postgresql:// as psycopg 3; dagster-postgres brings psycopg2
_DRIVER = "postgresql+psycopg2://"


class StorageSettingError(ValueError):
    """A storage URL that cannot be used, with a one-line reason."""


def redacted(url: str) -> str:
    """The URL with its password replaced by ``***`` (for messages and logs)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = (parts.username or "") + ":***"
    return urlunsplit(parts._replace(netloc=f"{user}@{netloc[1]}"))


def validate_storage_url(url: str) -> str:
    """``sqlite`` or a ``postgresql://`` URL naming a host and a database; anything else is refused."""
    url = url.strip()
    if url.lower() == DEFAULT:
        return DEFAULT
    parts = urlsplit(url)
    if parts.scheme not in ("postgresql", "postgres"):
        raise StorageSettingError(
            f"dagster storage {redacted(url)!r}: expected `sqlite` or postgresql://USER@HOST:PORT/DB"
        )
    if not parts.hostname or not parts.path.strip("/"):
        raise StorageSettingError(f"dagster storage {redacted(url)!r}: the URL needs a host and a database name")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        raise StorageSettingError(f"dagster storage {redacted(url)!r}: {exc}") from exc
    return url


def check_reachable(url: str, timeout_s: int = 5) -> None:
    """Connect once, so a wrong URL fails at ``init`` with one line instead of in the first run."""
    import psycopg2

    try:
        psycopg2.connect(url, connect_timeout=timeout_s).close()
    except psycopg2.Error as exc:
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise StorageSettingError(f"cannot reach the dagster storage {redacted(url)}: {reason}") from exc


def _without_block(text: str) -> str:
    if _BEGIN not in text:
        return text
    head, rest = text.split(_BEGIN, 1)
    tail = rest.split(_END, 1)[1] if _END in rest else ""
    return head.rstrip("\n") + "\n" + tail.lstrip("\n")


def current_storage(home: Path) -> str:
    """The storage the home's ``dagster.yaml`` names: a postgres URL, or ``sqlite``."""
    config_file = home / "dagster.yaml"
    if not config_file.exists():
        return DEFAULT
    loaded = yaml.safe_load(config_file.read_text(encoding="utf-8")) or {}
    postgres = (loaded.get("storage") or {}).get("postgres") or {}
    url = postgres.get("postgres_url")
    return url.replace(_DRIVER, "postgresql://", 1) if url else DEFAULT


def apply_storage(home: Path, url: str) -> bool:
    """Point the instance in ``home`` at ``url`` (``sqlite``: the embedded default). Returns whether
    ``dagster.yaml`` changed. The file is replaced atomically."""
    url = validate_storage_url(url)
    config_file = home / "dagster.yaml"
    text = config_file.read_text(encoding="utf-8")
    if "\nstorage:" in _without_block("\n" + text):
        raise StorageSettingError(f"{config_file} already has a storage section of its own: edit it there")
    new = _without_block(text)
    if url != DEFAULT:
        stored = _DRIVER + url.split("://", 1)[1]
        block = yaml.safe_dump({"storage": {"postgres": {"postgres_url": stored}}}, sort_keys=False)
        new = new.rstrip("\n") + "\n" + _BEGIN + "\n" + block + _END + "\n"
    if new == text:
        return False
    write_text_atomically(config_file, new)
    return True
