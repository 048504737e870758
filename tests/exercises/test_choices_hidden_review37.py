"""A menu option read for its hint but not offered ("hidden"): one home, grading.Choices (review 37k1)."""
from rooflinelib.exercises import ex02_classify, ex03_attention
from rooflinelib.exercises.grading import Choices

MENU = Choices({"a": ("first", ()), "b": ("second", ()), "c": ("read for its hint", ())}, hidden=("c",))


def test_a_hidden_option_is_read_but_not_offered():
    assert MENU.read("c") == "c" and MENU.names() == ["a", "b", "c"]
    assert "'c'" not in MENU.menu() and [row[0] for row in MENU.table().rows] == ["a", "b"]
    message = _unreadable(MENU, "zzz")
    assert message.endswith("'zzz' is not one of 'a' or 'b'")


def _unreadable(choices, answer) -> str:
    try:
        choices.read(answer)
    except Exception as exc:  # AnswerError: the one-line message a student sees
        return str(exc)
    raise AssertionError("read an unreadable answer")


def test_key_3_lists_the_three_growths_its_page_offers():
    # 37k1: an unreadable growth was told it is not one of four, 'unbounded' among them
    report = ex03_attention.check_limits("blah", "unbounded", 1, 1)
    unreadable, unbounded = report.checks[0].message, report.checks[1].message
    # review 56k1: the page offers "levels off" (tends to a constant) for 'constant'
    assert "is not one of 'levels off', 'linear' or 'quadratic'" in unreadable and "unbounded" not in unreadable
    assert unbounded == ex03_attention.GROWTH_UNBOUNDED_HINT  # still read, for its hint


def test_key_2_hides_latency_through_the_shared_menu():
    assert type(ex02_classify.LIMITERS) is Choices and "latency" in ex02_classify.LIMITERS.names()
    assert "latency" not in [row[0] for row in ex02_classify.LIMITERS.table().rows]


def test_drill_7_hides_unbounded_the_way_exercise_3_does():
    from rooflinelib.exercises import ex05_drills
    assert ex05_drills._GROWTH.hidden == ex03_attention.GROWTH.hidden == ("unbounded",)
    assert _unreadable(ex05_drills._GROWTH, "zzz").endswith("is not one of 'constant', 'linear' or 'quadratic'")
    assert ex05_drills._GROWTH.read("unbounded") == "unbounded"


def test_drill_3_keeps_the_hidden_latency_of_the_menu_it_copies():
    # review 39k2: the drill rebuilt exercise 2's menu from its options and lost `hidden`
    from rooflinelib.exercises import ex05_drills
    # review 46k2: drill 3 hides one more, "ridge", read for its own hint
    assert ex05_drills._LIMITERS.hidden == ex02_classify.LIMITERS.hidden + ("ridge",)
    assert ex02_classify.LIMITERS.hidden == ("latency",)
    assert "'latency'" not in _unreadable(ex05_drills._LIMITERS, "zzz")
    assert ex05_drills._LIMITERS.read("latency") == "latency"
