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


def test_review_pauses_then_publishes_on_the_answer(shared_runtime):
    r = shared_runtime("review.draft").invoke(envelope({"text": "hello"}, prev=[], curr="draft",
                                                       next_=["publish"]))
    assert r.status == 200, r
    frame = r.json()["frames"][0]
    assert frame["headers"]["x-svc-pause"] == "awaiting approval"
    assert frame["route"] == {"prev": ["draft"], "curr": "publish", "next": []}
    resumed = dict(frame["payload"], input={"text": " Yes "})
    out = shared_runtime("review.publish").invoke(envelope(resumed, prev=["draft", "x-pause"], curr="publish"))
    assert out.json()["frames"][0]["payload"] == {"draft": "Hello", "published": True, "answer": " Yes "}
    no = shared_runtime("review.publish").invoke(envelope(dict(frame["payload"], input={"text": "no"}),
                                                          prev=["draft"], curr="publish"))
    assert no.json()["frames"][0]["payload"]["published"] is False


def test_interview_asks_twice_then_greets_with_both_answers(shared_runtime):
    first = shared_runtime("interview.ask_name").invoke(envelope({"text": "colours"}, prev=[], curr="ask-name",
                                                                 next_=["ask-colour", "greet"]))
    frame = first.json()["frames"][0]
    assert frame["headers"]["x-svc-pause"] == "What is your name?"
    second = shared_runtime("interview.ask_colour").invoke(envelope(
        dict(frame["payload"], input={"text": " Ada "}), prev=["ask-name"], curr="ask-colour", next_=["greet"]))
    frame = second.json()["frames"][0]
    assert frame["headers"]["x-svc-pause"] == "What is your favourite colour?"
    assert frame["payload"]["name"] == "Ada"
    done = shared_runtime("interview.greet").invoke(envelope(dict(frame["payload"], input={"text": "blue"}),
                                                             prev=["ask-name", "ask-colour"], curr="greet"))
    assert done.json()["frames"][0]["payload"]["text"] == "Hello Ada, blue it is."


def test_divide_answers_the_quotient_or_fails_with_its_traceback(shared_runtime):
    runtime = shared_runtime("calc.divide")
    ok = runtime.invoke(envelope({"text": "6/3"}, prev=[], curr="divide", next_=[]))
    assert ok.json()["frames"][0]["payload"]["text"] == "6 / 3 = 2"
    failed = runtime.invoke(envelope({"a": 1, "b": 0}, prev=[], curr="divide", next_=[]))
    assert failed.status == 500
    details = failed.json()["details"]
    assert details["type"] == "ZeroDivisionError"
    assert details["traceback"].startswith("Traceback (most recent call last):")
    assert "calc.py" in details["traceback"]
    assert details["traceback"].endswith("ZeroDivisionError: float division by zero\n")
