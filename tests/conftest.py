"""The order `make test` hands the tests to its two workers (pytest-xdist, `--dist worksteal`): the first half of the
collection goes to one worker, the second to the other, and a worker that runs dry takes half of the other's queue
from its end. The slowest tests (make test lists them, `--durations 15`) are therefore dealt alternately to the two
halves, longest first, so that both workers start on them and the queues end in short tests a free worker can take:
the run does not wait on one long test started last. The order changes nothing else: no test depends on another."""

# longest first (seconds on 2 idle cores, 2026-12-04); a module-scoped fixture's tests stay together in one half
SLOW = (
    "test_grammar_learnable.py::",                                    # 91 s
    "test_reproducible.py::",                                         # 79 s
    "test_workspace.py::test_runs_and_caches_go_where_the_user_works",  # 71 s
    "test_docs.py::",                                                 # 60 s: the site fixture (one build)
    "test_studies.py::test_grokking_on_real_c4_and_blimp",            # ~60 s
    "test_execution_params.py::test_compartments_under_torchrun",     # 58 s
    "test_recovery.py::test_kernel_killed_then_plain_rerun",          # 57 s
    "test_paper_scale.py::",                                          # 49 s
    "test_studies.py::test_study_under_torchrun",                     # 47 s
    "test_studies.py::test_compartments_on_a_token_store",            # 45 s
    "test_launch.py::test_two_nodes",                                 # 44 s
    "test_recovery.py::test_training_killed_at_a_random_point",       # 42 s
    "test_studies.py::test_study_runs",                               # 33 s and less
    "test_ddp.py::",
    "test_recovery.py::test_dead_runner_is_stale_and_rerun",          # 30 s
)


def _rank(item) -> int:
    for i, key in enumerate(SLOW):
        if key in item.nodeid: return i
    return len(SLOW)


def pytest_collection_modifyitems(session, config, items):
    groups: dict[int, list] = {}
    for it in items: groups.setdefault(_rank(it), []).append(it)
    rest = groups.pop(len(SLOW), [])
    halves: list[list] = [[], []]
    for k, rank in enumerate(sorted(groups)): halves[k % 2].extend(groups[rank])
    first = len(items) // 2                                               # the first worker's share
    fill = max(0, first - len(halves[0]))
    items[:] = halves[0] + rest[:fill] + halves[1] + rest[fill:]
