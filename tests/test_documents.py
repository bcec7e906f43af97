"""Reading files into documents, and every kind of bad input getting a clear reason."""

from pathlib import Path

import pytest
from pypdf import PdfWriter

from kg_pipelines.ingestion.documents import DocumentReadError, DocumentText, document_key, read_document, title_of

MB = 1_000_000


def _write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def text_pdf(text: str) -> bytes:
    """A minimal one-page PDF whose text layer says ``text`` (Helvetica, written by hand)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def test_markdown_title_is_first_heading(tmp_path):
    doc = read_document(_write(tmp_path, "a_note.md", b"Intro line\n# Spermidine and autophagy\nText."), MB)
    assert isinstance(doc, DocumentText)
    assert doc.title == "Spermidine and autophagy"
    assert len(doc.content_hash) == 64


def test_title_falls_back_to_file_name():
    assert title_of("no heading here", Path("butyrate_and_colon-health.txt")) == "butyrate and colon health"


@pytest.mark.parametrize(
    "name, data, reason, words",
    [
        ("empty.txt", b"", "empty", "empty"),
        ("blank.md", b"  \n\n\t ", "empty", "empty"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 20, "binary", "binary"),
        ("latin1.txt", "Caf\u00e9 au lait".encode("latin-1"), "encoding", "UTF-8"),
        ("notes.docx", b"PK\x03\x04", "unsupported", "unsupported"),
        ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "unreadable", "PDF"),
    ],
)
def test_bad_input_gets_a_clear_reason(tmp_path, name, data, reason, words):
    result = read_document(_write(tmp_path, name, data), MB)
    assert isinstance(result, DocumentReadError)
    assert result.reason == reason
    assert words in result.message and name in result.message


def test_invalid_utf8_message_points_at_the_byte(tmp_path):
    result = read_document(_write(tmp_path, "bad.txt", b"fine start \xff\xfe then more"), MB)
    assert isinstance(result, DocumentReadError)
    assert "0xff" in result.message and "offset 11" in result.message


def test_twenty_megabyte_document_is_refused_without_reading_it(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as handle:  # sparse file: 20 MB on paper, nothing on disk
        handle.truncate(20 * MB)
    result = read_document(path, 10 * MB)
    assert isinstance(result, DocumentReadError) and result.reason == "too_large"
    assert "20.0 MB" in result.message and "max_document_mb" in result.message


def test_pdf_without_text_layer(tmp_path):
    writer = PdfWriter()
    writer.add_blank_page(width=200, height=200)
    path = tmp_path / "scan.pdf"
    with path.open("wb") as handle:
        writer.write(handle)
    result = read_document(path, MB)
    assert isinstance(result, DocumentReadError) and result.reason == "no_text"
    assert "OCR" in result.message


def test_pdf_with_text_layer(tmp_path):
    result = read_document(_write(tmp_path, "paper.pdf", text_pdf("Rapamycin inhibits mTORC1 in yeast.")), MB)
    assert isinstance(result, DocumentText)
    assert "Rapamycin inhibits mTORC1" in result.text


def test_missing_file(tmp_path):
    result = read_document(tmp_path / "gone.md", MB)
    assert isinstance(result, DocumentReadError) and result.reason == "missing"


def test_document_key_is_stable_and_safe():
    assert document_key("microbiome", "sub/akk.md") == "microbiome/sub/akk.md"
    odd = document_key("microbiome", "a, b [draft].md")
    assert odd == document_key("microbiome", "a, b [draft].md")
    assert "," not in odd and "[" not in odd
    assert odd != document_key("microbiome", "a_ b _draft_.md")
