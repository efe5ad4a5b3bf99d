"""The example actors run in real runtimes: a 3-actor text pipeline chained by route."""

from conftest import envelope


def test_text_pipeline_three_runtimes(shared_runtime):
    actors = {name: shared_runtime(f"text.{name}") for name in ("upper", "reverse", "count")}
    env = envelope({"text": "hello"}, prev=[], curr="upper", next_=["reverse", "count"],
                   headers={"trace": "x"})
    seen = []
    while env["route"]["curr"]:
        r = actors[env["route"]["curr"]].invoke(env)
        assert r.status == 200, r
        frame = r.json()["frames"][0]
        seen.append(frame["route"])
        env = {"id": env["id"], **frame}
    assert env["payload"] == {"text": "OLLEH", "steps": ["upper", "reverse", "count"],
                              "length": 5}
    assert seen[-1] == {"prev": ["upper", "reverse", "count"], "curr": "", "next": []}
    assert env["headers"] == {"trace": "x"}


def test_echo_example(shared_runtime):
    r = shared_runtime("echo.handle").invoke(envelope([1, 2]))
    assert r.json()["frames"][0]["payload"] == [1, 2]
