"""Reading a source file into a document: text, title, content hash, or a clear reason why not.

Supported: .txt, .md (UTF-8) and .pdf (text layer, via pypdf). Bad input never raises out of
``read_document``; it returns a ``DocumentReadError`` whose message tells the user what is wrong
and what to do, so a broken file becomes a Failed document and nothing else is touched.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from kg_pipelines.ingestion.activity import RunActivity

SUPPORTED_SUFFIXES = (".txt", ".md", ".pdf")
_HEADING = re.compile(r"^\s{0,3}#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_KEY_UNSAFE = re.compile(r"[^A-Za-z0-9._/-]+")


@dataclass(frozen=True)
class DocumentText:
    text: str
    title: str
    content_hash: str
    n_bytes: int


@dataclass(frozen=True)
class DocumentReadError:
    reason: str  # empty | binary | encoding | too_large | no_text | missing | unsupported | unreadable
    message: str
    content_hash: str | None = None


def document_key(collection: str, relative_path: str) -> str:
    """The stable id (and Dagster partition key) of a document: ``<collection>/<relative path>``.

    Characters that Dagster partition keys or URLs handle badly are replaced; when that changes
    the path, a short hash keeps two different paths from colliding.
    """
    raw = f"{collection}/{Path(relative_path).as_posix()}"
    safe = _KEY_UNSAFE.sub("_", raw).replace("..", "_")
    if safe != raw:
        safe = f"{safe}~{hashlib.sha1(raw.encode()).hexdigest()[:8]}"
    return safe


def file_content_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def title_of(text: str, path: Path) -> str:
    """The first Markdown heading, else the file name made readable."""
    heading = _HEADING.search(text)
    if heading:
        return heading.group(1).strip()
    return path.stem.replace("_", " ").replace("-", " ").strip() or path.name


def read_document(path: Path, max_bytes: int) -> DocumentText | DocumentReadError:
    path = Path(path)
    if path.suffix.lower() not in SUPPORTED_SUFFIXES:
        return DocumentReadError(
            "unsupported", f"{path.name}: unsupported file type {path.suffix!r}; use {', '.join(SUPPORTED_SUFFIXES)}"
        )
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read() if size <= max_bytes else b""
    except FileNotFoundError:
        return DocumentReadError(
            "missing", f"{path}: the file no longer exists (deleted or moved after it was detected)"
        )
    except OSError as exc:
        return DocumentReadError("unreadable", f"{path}: cannot read file: {exc.strerror or exc}")
    if size > max_bytes:
        return DocumentReadError(
            "too_large",
            f"{path.name}: {size / 1e6:.1f} MB is over the limit of {max_bytes / 1e6:.1f} MB "
            "(settings: max_document_mb); split the document or raise the limit",
        )
    content_hash = hashlib.sha256(data).hexdigest()
    if path.suffix.lower() == ".pdf":
        decoded = _pdf_text(path, data)
    else:
        decoded = _plain_text(path, data)
    if isinstance(decoded, DocumentReadError):
        return DocumentReadError(decoded.reason, decoded.message, content_hash)
    text = decoded.replace("\r\n", "\n").replace("\r", "\n")
    if not text.strip():
        kind = "no_text" if path.suffix.lower() == ".pdf" else "empty"
        detail = (
            "the PDF has no text layer (scanned images?); run OCR first"
            if kind == "no_text"
            else "the file is empty or whitespace only"
        )
        return DocumentReadError(kind, f"{path.name}: {detail}", content_hash)
    return DocumentText(text=text, title=title_of(text, path), content_hash=content_hash, n_bytes=len(data))


def _plain_text(path: Path, data: bytes) -> str | DocumentReadError:
    if b"\x00" in data[:65536] or _control_share(data[:65536]) > 0.10:
        return DocumentReadError(
            "binary",
            f"{path.name}: looks like a binary file, not text (NUL or control bytes); "
            "only plain-text .txt/.md are read",
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return DocumentReadError(
            "encoding",
            f"{path.name}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "re-save the file as UTF-8",
        )


def _control_share(sample: bytes) -> float:
    if not sample:
        return 0.0
    control = sum(1 for b in sample if b < 32 and b not in (9, 10, 12, 13))
    return control / len(sample)


def _pdf_text(path: Path, data: bytes) -> str | DocumentReadError:
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        pages = [page.extract_text() or "" for page in reader.pages]
    except (PdfReadError, ValueError, KeyError, TypeError) as exc:
        return DocumentReadError("unreadable", f"{path.name}: not a readable PDF ({exc})")
    return "\n\n".join(p.strip() for p in pages if p.strip())


# -- the stage: registered sources -> documents ----------------------------------------------------


@dataclass
class DocumentsReport:
    read: int = 0
    unchanged: int = 0
    failed: int = 0
    kept_previous: int = 0
    removed: int = 0
    gone: list[str] = field(default_factory=list)  # sources whose file vanished: the caller forgets them
    activity: RunActivity = field(default_factory=RunActivity)  # what this run did, first documents by id


def sync_documents(ctx, scope, sources) -> DocumentsReport:
    """Bring the collection's ``documents`` rows in line with its registered sources.

    New sources and sources whose content hash changed are read (and any document of
    ``scope.only``, changed or not); unchanged ones cost nothing; rows of sources that are no
    longer registered, or whose file has vanished, are deleted (later stages then take away what
    was built from them). A file that cannot be read keeps the rows of its last good version and
    records the reason in ``error``; if there is none, it becomes a row with ``text`` NULL (status
    Failed). Writes go in batches of ``ctx.batch_size`` documents, one transaction each.
    """
    from kg_pipelines.stores.warehouse import delete_where_in, fetch_dicts, replace_rows, transaction

    conn, now = ctx.conn, ctx.now()
    where, params = scope.sql_filter()
    existing = {
        r["document_id"]: r
        for r in fetch_dicts(
            conn,
            f"SELECT document_id, content_hash, text IS NULL AS failed, ingested_at FROM documents WHERE {where}",
            params,
        )
    }
    active = {
        s.document_id: s
        for s in sources
        if s.collection == scope.collection and (scope.only is None or s.document_id in scope.only)
    }
    report = DocumentsReport()
    to_read = []
    for source in active.values():
        before = existing.get(source.document_id)
        if before is None or before["content_hash"] != source.content_hash or scope.forced(source.document_id):
            to_read.append(source)
        else:
            report.unchanged += 1
    removed = [d for d in existing if d not in active]
    unregistered = len(removed)  # the first ones; files found missing below are added (and recorded there)
    tick = ctx.progress("read documents", len(to_read))
    for start in range(0, len(to_read), ctx.batch_size):
        rows, keep_with_error = [], []
        for source in to_read[start : start + ctx.batch_size]:
            document_id, before = source.document_id, existing.get(source.document_id)
            result = read_document(Path(source.path), ctx.settings.max_document_mb * 1e6)
            base = {
                "document_id": document_id,
                "collection": source.collection,
                "source_path": source.path,
                "updated_at": now,
            }
            if isinstance(result, DocumentReadError) and result.reason == "missing":
                report.gone.append(document_id)
                if document_id in existing:
                    removed.append(document_id)
                report.activity.set(document_id, {"status": "removed", "error": result.message})
            elif isinstance(result, DocumentReadError) and before and not before["failed"]:
                report.kept_previous += 1
                keep_with_error.append((document_id, result.message))
                report.activity.set(document_id, {"status": "kept previous version", "error": result.message})
            elif isinstance(result, DocumentReadError):
                report.failed += 1
                rows.append(
                    {
                        **base,
                        "title": Path(source.path).name,
                        "content_hash": result.content_hash,
                        "text": None,
                        "n_chars": 0,
                        "error": result.message,
                        "ingested_at": now,
                    }
                )
                report.activity.set(document_id, {"status": "Failed", "error": result.message})
            else:
                report.read += 1
                rows.append(
                    {
                        **base,
                        "title": result.title,
                        "content_hash": result.content_hash,
                        "text": result.text,
                        "n_chars": len(result.text),
                        "error": None,
                        "ingested_at": before["ingested_at"] if before else now,
                    }
                )
                status = (
                    "read"
                    if before is None
                    else "changed"
                    if before["content_hash"] != result.content_hash
                    else "re-read"
                )
                report.activity.set(document_id, {"status": status, "error": None})
        with transaction(conn):
            replace_rows(conn, "documents", "document_id", [r["document_id"] for r in rows], rows)
            for document_id, message in keep_with_error:
                conn.execute(
                    "UPDATE documents SET error = ?, updated_at = ? WHERE document_id = ?", [message, now, document_id]
                )
        tick(len(to_read[start : start + ctx.batch_size]))
    if removed:
        with transaction(conn):
            delete_where_in(conn, "documents", "document_id", removed)
        for document_id in removed[:unregistered]:
            report.activity.set(document_id, {"status": "removed", "error": None})
    report.removed = len(removed)
    return report
