"""Reading a source file into a document: text, title, content hash, or a clear reason why not.

Supported: .txt, .md (UTF-8) and .pdf (text layer, via pypdf). Bad input never raises out of
``read_document``; it returns a ``DocumentReadError`` whose message tells the user what is wrong
and what to do, so a broken file becomes a Failed document and nothing else is touched.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

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
        return DocumentReadError("unsupported", f"{path.name}: unsupported file type {path.suffix!r}; use {', '.join(SUPPORTED_SUFFIXES)}")
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read() if size <= max_bytes else b""
    except FileNotFoundError:
        return DocumentReadError("missing", f"{path}: the file no longer exists (deleted or moved after it was detected)")
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
        detail = "the PDF has no text layer (scanned images?); run OCR first" if kind == "no_text" else "the file is empty or whitespace only"
        return DocumentReadError(kind, f"{path.name}: {detail}", content_hash)
    return DocumentText(text=text, title=title_of(text, path), content_hash=content_hash, n_bytes=len(data))


def _plain_text(path: Path, data: bytes) -> str | DocumentReadError:
    if b"\x00" in data[:65536] or _control_share(data[:65536]) > 0.10:
        return DocumentReadError("binary", f"{path.name}: looks like a binary file, not text (NUL or control bytes); only plain-text .txt/.md are read")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return DocumentReadError(
            "encoding",
            f"{path.name}: not valid UTF-8 (byte 0x{data[exc.start]:02x} at offset {exc.start}); re-save the file as UTF-8",
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
    unregistered: list[str] | None = None
    errors: dict[str, str] | None = None  # document_id -> message


def load_documents(conn, sources: dict, document_ids: list[str], max_bytes: int, now) -> DocumentsReport:
    """Read each document's file and write its ``documents`` row.

    A file that cannot be read becomes a Failed row with the reason in ``error``; if an earlier
    version was ingested, that version's rows are kept and only ``error`` records the failure, so
    bad input never takes away what the graph already had.
    """
    from kg_pipelines.stores.warehouse import fetch_dicts, replace_rows, transaction

    report = DocumentsReport(unregistered=[], errors={})
    existing = {
        r["document_id"]: r
        for r in fetch_dicts(
            conn,
            "SELECT document_id, content_hash, status, ingested_at FROM documents WHERE document_id IN (SELECT unnest(?::VARCHAR[]))",
            [document_ids],
        )
    }
    rows, keep_with_error = [], []
    for document_id in document_ids:
        source = sources.get(document_id)
        if source is None:
            report.unregistered.append(document_id)
            continue
        before = existing.get(document_id)
        result = read_document(Path(source.path), max_bytes)
        base = {"document_id": document_id, "collection": source.collection, "source_path": source.path, "updated_at": now}
        if isinstance(result, DocumentReadError):
            report.errors[document_id] = result.message
            if before and before["status"] != "Failed":
                report.kept_previous += 1
                keep_with_error.append((document_id, result.message))
                continue
            report.failed += 1
            rows.append({**base, "title": Path(source.path).name, "content_hash": result.content_hash, "text": None,
                         "n_chars": 0, "status": "Failed", "error": result.message, "ingested_at": now})
            continue
        unchanged = before is not None and before["content_hash"] == result.content_hash and before["status"] != "Failed"
        report.unchanged += int(unchanged)
        report.read += 1
        rows.append({**base, "title": result.title, "content_hash": result.content_hash, "text": result.text,
                     "n_chars": len(result.text), "status": before["status"] if unchanged else "Pending", "error": None,
                     "ingested_at": before["ingested_at"] if before else now})
    with transaction(conn):
        replace_rows(conn, "documents", "document_id", [r["document_id"] for r in rows], rows)
        for document_id, message in keep_with_error:
            conn.execute("UPDATE documents SET error = ?, updated_at = ? WHERE document_id = ?", [message, now, document_id])
    return report
