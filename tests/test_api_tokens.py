"""The token commands: create prints the token once as its last line, list shows no secret, revoke
turns the token away at the API's door (401)."""

from __future__ import annotations

import json

import pytest
from test_api_support import api, create_token  # noqa: F401  (api is a fixture)

from debate_core.cli import main
from debate_core.client import ApiError


def test_create_list_and_revoke_at_the_command_line(api, capsys):  # noqa: F811
    token = create_token(api.db, "nightly job", "reviewer", capsys)
    assert token.startswith("dbt_")
    with api.client(None) as anonymous:
        anonymous.http.headers["Authorization"] = f"Bearer {token}"
        assert anonymous.list()["debates"] == []
        assert main(["--db", str(api.db), "token", "list"]) == 0
        listed = capsys.readouterr().out
        assert "nightly job  reviewer" in listed and token not in listed and "last used 20" in listed
        assert main(["--db", str(api.db), "token", "revoke", "nightly job"]) == 0
        assert "revoked the token 'nightly job'" in capsys.readouterr().out
        with pytest.raises(ApiError) as err:
            anonymous.list()
        assert (err.value.status, err.value.code) == (401, "bad_token")
    assert main(["--db", str(api.db), "token", "list"]) == 0
    assert "nightly job  reviewer" in (out := capsys.readouterr().out) and "revoked 20" in out


def test_a_duplicate_name_a_bad_role_or_an_unknown_name_is_exit_2(api, capsys):  # noqa: F811
    capsys.readouterr()
    assert main(["--db", str(api.db), "token", "create", "--name", "admin bot", "--role", "viewer"]) == 2
    assert "a token named 'admin bot' exists already" in capsys.readouterr().err
    assert main(["--db", str(api.db), "token", "create", "--name", "x", "--role", "owner"]) == 2
    assert "invalid choice: 'owner'" in capsys.readouterr().err
    assert main(["--db", str(api.db), "token", "revoke", "nobody"]) == 2
    assert "no token named 'nobody'" in capsys.readouterr().err
    assert main(["--db", str(api.db), "token", "list", "--json"]) == 0
    assert sorted(t["name"] for t in json.loads(capsys.readouterr().out)) == [
        "admin bot", "reviewer bot", "supervisor bot", "viewer bot"]
