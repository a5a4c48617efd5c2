"""How profiles/_codings.csv and profiles/_ran.csv were first written (ledger 2.0), kept as the record of it.

Inputs: docs/coding_history.py's output for commit e2413f4 (the last commit before ledger 2.0), names level: the commit
that last changed each claim's definition or the run sets it names, and the first commit of every run set's summaries;
and figures/ledger.csv at e2413f4 (each claim's verdict before ledger 2.0). Every claim gets the row its history gives
(its fingerprint the current one, or "superseded" where ledger 2.0 recoded it); a recoded claim gets a second row, fixed
at 2c900be (B5, B10, B10b, B15, B15b: committed before profiles b-control and b-suite-14m2 ran) or at the time given on
the command line (the others), with the verdict it had before. A run set ran when its runs folder first held runs its
table includes. From then on, `grok_nb.ledger.record_codings` appends a row for every coding that changes.

Run: python docs/coding_history.py e2413f4 && git show e2413f4:figures/ledger.csv > /tmp/ledger_e2413f4.csv &&
python docs/first_codings.py <ISO time of the recoding commit>
"""
import sys
import pandas as pd
from grok_nb import ledger as L
from grok_nb.core import PROJECT_ROOT
from grok_nb.jobs import PROFILE_RUNS, load_profiles
ROOT = PROJECT_ROOT
hist = pd.read_csv("/tmp/codings_history_names.csv", dtype=str, keep_default_na=False).set_index("id")
head = pd.read_csv("/tmp/ledger_e2413f4.csv", dtype=str, keep_default_na=False).set_index("id")
PRE = "2026-12-07T03:30:55+00:00"     # 2c900be: B5, B10, B10b, B15, B15b fixed before b-control / b-suite-14m2 ran
NOW = sys.argv[1]                      # the commit of the other recodings
REASON = {
    "A5": "the window before the transition starts at 5% of the training window, not at initialisation",
    "B2r": "the model is the unit (its paradigm curves relabelled together)",
    "B4": "the model is the unit (its emergences averaged)",
    "B5": "the paper's K = 16, held out, on models with > 16 heads (12 with profile b-suite-14m2)",
    "B10": "a trend over H = 1, 4, 16 on both synthetic tasks (profile b-control adds the automaton's H = 1)",
    "B10b": "a trend over H = 1, 4, 16 at S 8",
    "B15": "against a compute-matched control (300 steps of random-token pre-pretraining, profile b-control)",
    "B15b": "against a compute-matched control (300 steps of random-token pre-pretraining, profile b-control)",
    "C4": "only where the c = 1 model was duplicated at its plateau; margin 0.05 nats at every c",
    "C6": "the seed is the unit; only where translation is learned at c = 8",
    "C9": "equivalence (TOST) within ±0.05 bits/byte instead of one-sided non-inferiority",
    "C10": "the paper's comparison: biographies alone for the joint run's steps (was: equal exposure)",
    "C10b": "the paper's comparison: QA alone for the joint run's steps (was: equal exposure)",
    "C10e": "equal exposure (C10's earlier coding), only where the single-format arm reached its plateau",
    "C10be": "equal exposure (C10b's earlier coding), only where the single-format arm reached its plateau",
}
INHERITS = {"C10e": "C10", "C10be": "C10b"}
rows = []
for c in L.CLAIMS:
    fp = L.coding_fingerprint(c)
    if c.id in hist.index:
        h = hist.loc[c.id]
        rows.append(dict(id=c.id, coded=h.coded_date, fingerprint="superseded" if c.id in REASON else fp,
                         earlier_verdict=h.earlier_verdict,
                         note=f"from git: {h.coded_commit}, the last change to its definition or the run sets it names "
                              "(docs/coding_history.py, names level)"))
    if c.id in REASON:
        when = PRE if c.id in ("B5", "B10", "B10b", "B15", "B15b") else NOW
        ev = head.loc[INHERITS.get(c.id, c.id)].verdict
        rows.append(dict(id=c.id, coded=when, fingerprint=fp, earlier_verdict=ev, note="ledger 2.0: " + REASON[c.id]))
pd.DataFrame(rows, columns=L.CODING_COLUMNS).to_csv(f"{ROOT}/profiles/_codings.csv", index=False)
dates = pd.read_csv("/tmp/run_set_dates.csv", dtype=str, keep_default_na=False)
first = {r.run_set: (r.first_date, r.first_commit) for r in dates.itertuples() if r.first_date}
folder = lambda rs: PROFILE_RUNS.get(rs.removeprefix("profile-"), rs.removeprefix("profile-"))   # noqa: E731
ran = []
for rs in sorted(set(first) | {f"profile-{n}" for n in load_profiles()}):
    if rs == "demo":
        if rs in first:
            ran.append(dict(run_set=rs, ran=first[rs][0], how=f"first commit of its summaries ({first[rs][1]})"))
        continue
    own = first.get(rs, ("9999", ""))[0]
    shared = sorted((first[o][0], o) for o in first if o != "demo" and folder(o) == folder(rs) and first[o][0] <= own)
    if not shared: continue
    t, o = shared[0]
    how = (f"first commit of its summaries ({first[rs][1]})" if o == rs else
           f"its runs folder ({folder(rs)}) held {o}'s runs first ({first[o][1]}), which its table includes")
    ran.append(dict(run_set=rs, ran=t, how=how))
pd.DataFrame(ran).to_csv(f"{ROOT}/profiles/_ran.csv", index=False)
print(len(rows), "coding rows;", len(ran), "run sets")
print("unrecorded:", L.unrecorded_codings(L.CLAIMS, L.read_codings(ROOT / "profiles" / "_codings.csv")))
