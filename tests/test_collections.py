"""Collection names: valid names pass unchanged, every kind of invalid name is refused with a
message that names it and states the rule, and two names can no longer share a LanceDB table."""

from __future__ import annotations

import pytest
import yaml
from pydantic import ValidationError

from kg_pipelines.collections import COLLECTION_NAME_RULE, validate_collection_name
from kg_pipelines.config import KGSettings, load_settings
from kg_pipelines.stores.vectors import table_name

VALID = ["longevity", "my_coll", "Papers2024", "a", "0", "9lives", "A_B_C", "x" * 64, "snake_case_", "MiXeD"]

INVALID = {
    "empty": ("", "empty"),
    "hyphen": ("my-coll", "hyphen"),
    "dot": ("my.coll", "dot"),
    "space": ("my coll", "space"),
    "slash": ("my/coll", "slash"),
    "backslash": ("my\\coll", "backslash"),
    "path traversal": ("..", "dot"),
    "leading underscore": ("_private", "underscore"),
    "too long": ("x" * 65, "65 characters"),
    "accented letter": ("café", "'é' (not ASCII)"),
    "non-latin letters": ("коллекция", "not ASCII"),
    "non-ascii digit": ("٣", "not ASCII"),
    "trailing newline": ("notes\n", "'\\n'"),
    "tab": ("a\tb", "'\\t'"),
    "colon": ("a:b", "':'"),
    "star": ("*", "'*'"),
}


@pytest.mark.parametrize("name", VALID)
def test_valid_names_are_returned_unchanged(name):
    assert validate_collection_name(name) == name


@pytest.mark.parametrize("name, detail", list(INVALID.values()), ids=list(INVALID))
def test_invalid_names_are_refused_with_the_name_and_the_rule(name, detail):
    with pytest.raises(ValueError) as caught:
        validate_collection_name(name)
    message = str(caught.value)
    assert repr(name) in message
    assert detail in message
    assert COLLECTION_NAME_RULE in message


def test_rule_says_what_is_allowed():
    for words in ("letters", "digits", "underscores", "starting with a letter or digit", "64"):
        assert words in COLLECTION_NAME_RULE


def test_non_string_is_refused():
    with pytest.raises(ValueError, match="must be a string"):
        validate_collection_name(None)  # type: ignore[arg-type]


def test_table_names_are_one_to_one():
    assert table_name("chunks", "my_coll") == "chunks__my_coll"
    assert table_name("questions", "my_coll") == "questions__my_coll"
    # before: "my-coll" silently became chunks__my_coll too
    with pytest.raises(ValueError, match="invalid collection name 'my-coll'"):
        table_name("chunks", "my-coll")
    names = {table_name(kind, name) for kind in ("chunks", "questions") for name in VALID}
    assert len(names) == 2 * len(VALID)


def test_table_name_still_checks_the_kind():
    with pytest.raises(ValueError, match="unknown vector table kind"):
        table_name("nodes", "my_coll")


def test_settings_accept_valid_collection_keys(tmp_path):
    settings = KGSettings.model_validate(
        {"data_dir": tmp_path, "collections": {"papers": {}, "notes_2024": {"embedding_model": "openai:x"}}}
    )
    assert settings.embedding_model_for("notes_2024") == "openai:x"


@pytest.mark.parametrize("name", ["my-coll", "my coll", "café", "_x"])
def test_settings_with_a_bad_collection_key_fail_with_the_message(tmp_path, name):
    with pytest.raises(ValidationError) as caught:
        KGSettings.model_validate({"data_dir": tmp_path, "collections": {"ok": {}, name: {}}})
    message = str(caught.value)
    assert f"invalid collection name {name!r}" in message
    assert COLLECTION_NAME_RULE in message


def test_kg_yaml_with_a_bad_collection_key_fails(tmp_path, monkeypatch):
    for var in ("KG_CONFIG", "KG_INBOX_DIR", "KG_LLM_PROVIDER"):
        monkeypatch.delenv(var, raising=False)
    (tmp_path / "kg.yaml").write_text(yaml.safe_dump({"collections": {"my-coll": {"embedding_model": "x"}}}))
    with pytest.raises(ValidationError, match="invalid collection name 'my-coll'"):
        load_settings(tmp_path)
