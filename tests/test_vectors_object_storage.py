"""LanceDB on object storage: with `vectors.uri: s3://...` and an endpoint override, ingestion,
graph search, QA, retrieval and removal work as on the local folder, against an S3-compatible
server (moto) started by the test on loopback. Nothing is written to `<data-dir>/lancedb`."""

from __future__ import annotations

import boto3
import pytest
import yaml
from click.testing import CliRunner

from kg_pipelines.cli import main
from kg_pipelines.config import load_settings
from kg_pipelines.stores.vectors import VectorStore, connect_lancedb, is_remote

moto_server = pytest.importorskip("moto.server", reason="moto[server] is not installed (test extra)")

BUCKET = "kg-vectors"
DOCS = {
    "akkermansia.md": "# Akkermansia and metformin\n"
    "Metformin increases the abundance of Akkermansia muciniphila in the gut of mice. "
    "Akkermansia muciniphila strengthens the mucus layer of the intestine.\n",
    "spermidine.md": "# Spermidine and autophagy\n"
    "Spermidine induces autophagy in yeast, flies and mice. Autophagy clears damaged mitochondria.\n",
}


@pytest.fixture
def s3(monkeypatch):
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for name, value in {
        "AWS_ACCESS_KEY_ID": "test-key",
        "AWS_SECRET_ACCESS_KEY": "test-secret",
        "AWS_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(Bucket=BUCKET)
    try:
        yield endpoint
    finally:
        server.stop()


def _objects(endpoint: str) -> list[str]:
    listing = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").list_objects_v2(Bucket=BUCKET)
    return [item["Key"] for item in listing.get("Contents", [])]


def test_locations_are_told_apart():
    assert is_remote("s3://bucket/prefix") and is_remote("gs://bucket/x")
    assert not is_remote("/data/lancedb") and not is_remote("relative/lancedb")


def test_ingest_search_ask_retrieve_and_remove_on_object_storage(cli_env, s3):
    data = cli_env / "graph"
    data.mkdir()
    uri = f"s3://{BUCKET}/graphs/demo"
    options = {"aws_endpoint": s3, "allow_http": "true"}
    (data / "kg.yaml").write_text(yaml.safe_dump({"vectors": {"uri": uri, "storage_options": options}}))
    papers = cli_env / "papers"
    papers.mkdir()
    for name, text in DOCS.items():
        (papers / name).write_text(text)
    runner = CliRunner()

    result = runner.invoke(main, ["--data-dir", str(data), "ingest", str(papers), "--collection", "microbiome"])
    assert result.exit_code == 0, result.output
    assert not (data / "lancedb").exists(), "vectors went to the local folder"
    keys = _objects(s3)
    assert any(k.startswith("graphs/demo/chunks__microbiome.lance/") for k in keys)
    assert any(k.startswith("graphs/demo/graph_nodes.lance/") for k in keys)

    store = VectorStore.for_settings(load_settings(data_dir=data))
    chunks = store.open("chunks", "microbiome")
    assert chunks is not None and chunks.count_rows() == 2

    result = runner.invoke(main, ["--data-dir", str(data), "search", "Akkermansia muciniphila"])
    assert result.exit_code == 0 and "Metformin" in result.output, result.output
    result = runner.invoke(main, ["--data-dir", str(data), "retrieve", "What induces autophagy?", "--json"])
    assert result.exit_code == 0, result.output
    assert "spermidine.md" in result.output.split("\n", 3)[0] or "spermidine.md" in result.output
    result = runner.invoke(main, ["--data-dir", str(data), "ask", "What does metformin increase in the gut?"])
    assert result.exit_code == 0 and "akkermansia.md" in result.output, result.output

    result = runner.invoke(main, ["--data-dir", str(data), "remove", str(papers / "spermidine.md")])
    assert result.exit_code == 0, result.output
    remaining = connect_lancedb(uri, options).open_table("chunks__microbiome")
    assert sorted(r["document_id"] for r in remaining.to_arrow().to_pylist()) == ["microbiome/akkermansia.md"]


def test_an_unreachable_bucket_fails_the_run_with_the_reason(cli_env, s3):
    data = cli_env / "graph"
    data.mkdir()
    options = {"aws_endpoint": s3, "allow_http": "true"}
    settings = {"vectors": {"uri": "s3://no-such-bucket/x", "storage_options": options}}
    (data / "kg.yaml").write_text(yaml.safe_dump(settings))
    papers = cli_env / "papers"
    papers.mkdir()
    (papers / "a.md").write_text(DOCS["akkermansia.md"])
    before = _objects(s3)  # moto keeps one store per process: other tests' objects may be there
    result = CliRunner().invoke(main, ["--data-dir", str(data), "ingest", str(papers), "--collection", "microbiome"])
    assert result.exit_code != 0
    assert "cannot reach the vector store s3://no-such-bucket/x" in result.output, result.output[-2000:]
    assert "Traceback" not in result.output
    # no vector went anywhere else: not to the local folder, not to the bucket that exists
    assert not (data / "lancedb").exists() and _objects(s3) == before
