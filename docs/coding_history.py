"""When did each claim's coding last change, and did the data it is decided on exist by then?

A claim of the ledger (nbs/92_ledger.ipynb) is coded as a `Claim(...)` or `_steps_claim(...)` call, the A1.* rows by
the `_a1` function plus their `A_PHENOMENA` entry. A coding written after its data were committed may be post hoc.
This script walks git's history of the notebook (the commits of HEAD's history that touched it, oldest first),
parses the notebook's `#| export` cells with `ast` at each commit and normalises each claim's coding: `ast.unparse`
drops comments, whitespace and how implicitly concatenated strings are split; the keywords figure=, command=,
short=, paper_result= and docstrings are removed. Three codings are kept per claim:
  claim    the call itself (the brief's coding: /tmp/codings_history.csv)
  names    plus the notebook's module-level constants it names, transitively (A_TABLE, LM, C_TRANS ...), each by its
           value where it evaluates from literals and earlier constants, else by its source
  helpers  plus the notebook's functions it names, transitively (catch_up, paired_shift ...), minus the text an
           outcome prints (Outcome's n/budget/effect/detail/short, unit=, fmt= ...); `Claim`, `Outcome` and code
           imported from other modules (grok_nb.stats ...) are not followed
The last change is found as `git blame` would: from HEAD's coding, step to a parent (git's rewritten parents, the
commits that touched the notebook) while its coding is the same. n_changes counts the commits whose coding differs
from every parent's that has the claim (its introduction not counted); earlier_verdict is the verdict in
figures/ledger.csv at the changing commit's first parent. A run set's data date is the first commit adding a csv
under figures/<run set>/summaries/ (demo: figures/summaries/); a claim's is that of the run set in its HEAD ledger
row's source, or of the first part of a profile in parts (RUN_PARTS).
Writes /tmp/codings_history.csv, /tmp/codings_history_{names,helpers}.csv, /tmp/run_set_dates.csv and
/tmp/codings_posthoc.csv (each claim's data date beside its three coded dates); prints the claims coded at or after
their data date. Run: python docs/coding_history.py [commit, default HEAD]
"""
import ast, builtins, copy, json, re, subprocess, sys
from io import StringIO
from pathlib import Path
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
NB, LEDGER = "nbs/92_ledger.ipynb", "figures/ledger.csv"
DROP = {"figure", "command", "short", "paper_result"}                          # presentation, not coding
TEXT_KW = {"unit", "cluster_unit", "fmt", "value_label", "of_interest_text"}    # text, dropped at the helpers level
OUTCOME_TEXT = {"n", "budget", "effect", "detail", "short"}                     # Outcome's text fields, likewise
CLAIM_FUNCS, STOP = {"Claim", "_steps_claim"}, {"Claim", "Outcome"}             # STOP: machinery every claim shares
LEVELS = ("claim", "names", "helpers")
SAFE = {k: getattr(builtins, k) for k in "dict tuple list set frozenset range reversed next sorted len zip str int "
        "float bool min max enumerate any all".split()}
HEAD = "HEAD"                                      # pinned to a commit in main: the branch may move meanwhile

def git(*args: str) -> str:
    return subprocess.run(["git", "-C", str(REPO), *args], check=True, capture_output=True, text=True).stdout

def show(commit: str, path: str) -> str | None:
    r = subprocess.run(["git", "-C", str(REPO), "show", f"{commit}:{path}"], capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else None

class _Strip(ast.NodeTransformer):
    "Drop presentation keywords and docstrings; with `text`, also the text an outcome prints."
    def __init__(self, text: bool): self.text = text

    def visit_Call(self, node):
        self.generic_visit(node)
        drop = DROP | (TEXT_KW | (OUTCOME_TEXT if fname(node.func) == "Outcome" else set()) if self.text else set())
        node.keywords = [k for k in node.keywords if k.arg not in drop]
        return node

    def visit_Assign(self, node):                  # o.effect = f"...": text
        tg = node.targets if isinstance(node, ast.Assign) else [node.target]
        if self.text and all(isinstance(t, ast.Attribute) and t.attr in OUTCOME_TEXT for t in tg): return None
        return self.generic_visit(node)
    visit_AugAssign = visit_Assign

    def visit_FunctionDef(self, node):
        self.generic_visit(node)
        node.body = node.body[ast.get_docstring(node, clean=False) is not None:] or [ast.Pass()]
        return node
    visit_ClassDef = visit_FunctionDef

def strip(node: ast.AST, text: bool = False) -> ast.AST: return _Strip(text).visit(copy.deepcopy(node))
def norm(node: ast.AST, text: bool = False) -> str: return ast.unparse(strip(node, text))
def fname(f: ast.AST) -> str: return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
def names_in(node: ast.AST) -> set[str]: return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}

def export_trees(commit: str) -> list[ast.Module]:
    trees = []
    for cell in json.loads(show(commit, NB))["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "code" and re.match(r"#\s*\|\s*export\b", src):
            try: trees.append(ast.parse(src))
            except SyntaxError as e: print(f"warning: {commit[:7]}: a cell does not parse: {e}", file=sys.stderr)
    return trees

def definitions(trees) -> tuple[dict[str, list[ast.stmt]], dict[str, str]]:
    """Top-level name -> the statements defining it (the CLAIMS lists, assignments holding claims, left out), and
    name -> repr of its value for the constants that evaluate from literals and earlier constants alone."""
    defs, values, ns = {}, {}, {"__builtins__": SAFE}
    for st in (s for t in trees for s in t.body):
        if isinstance(st, (ast.FunctionDef, ast.ClassDef)): names = [st.name]
        elif isinstance(st, (ast.Assign, ast.AnnAssign)):
            if any(isinstance(n, ast.Call) and fname(n.func) in CLAIM_FUNCS for n in ast.walk(st)): continue
            names = sorted(names_in(ast.Module(st.targets if isinstance(st, ast.Assign) else [st.target], [])))
            try: exec(compile(ast.Module([st], []), "<ledger>", "exec"), ns)
            except Exception: [(ns.pop(n, None), values.pop(n, None)) for n in names]
            else: values |= {n: r for n in names if " at 0x" not in (r := repr(ns.get(n)))}
        else: continue
        for n in names: defs.setdefault(n, []).append(st)
    return defs, values

def claim_nodes(trees, defs) -> dict[str, tuple[list[ast.AST], str]]:
    "Claim id -> (the nodes that code it, a suffix): its call, or for A1.<key> the _a1 function and the key's entry."
    out = {}
    for n in (n for t in trees for n in ast.walk(t)):
        if isinstance(n, ast.Call) and fname(n.func) in CLAIM_FUNCS and n.args \
                and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, str):
            out.setdefault(n.args[0].value, ([n], ""))
    d = defs["A_PHENOMENA"][-1].value if "_a1" in defs and "A_PHENOMENA" in defs else None
    if isinstance(d, ast.Dict):
        for k, v in ((k, v) for k, v in zip(d.keys, d.values) if isinstance(k, ast.Constant)):
            out.setdefault(f"A1.{k.value}", ([defs["_a1"][-1]], f"\n{k.value!r}: {ast.unparse(v)}"))
    return out

def closure(nodes, defs, values, functions: bool) -> str:
    """The definitions of the notebook names `nodes` use (outside presentation keywords), followed transitively;
    functions only with `functions`."""
    seen, out = {"A_PHENOMENA"}, []            # A1's entry is in its claim coding; the other entries are not its coding
    todo = sorted(set().union(*(names_in(strip(n, functions)) for n in nodes)))
    while todo:
        n = todo.pop()
        if n in seen or n in STOP or n not in defs: continue
        seen.add(n)
        if n in values:
            out.append(f"{n} = {values[n]}")
        elif functions or not any(isinstance(s, (ast.FunctionDef, ast.ClassDef)) for s in defs[n]):
            out += [norm(s, functions) for s in defs[n]]
            todo += sorted(set().union(*(names_in(strip(s, functions)) for s in defs[n])))
    return "\n".join(sorted(set(out)))

def codings(commit: str) -> dict[str, tuple[str, str, str]]:
    "Claim id -> its coding at `commit` at each of `LEVELS`."
    trees = export_trees(commit)
    defs, values = definitions(trees)
    out = {}
    for cid, (nodes, sfx) in claim_nodes(trees, defs).items():
        own = "\n".join(map(norm, nodes)) + sfx
        helpers = "\n".join(norm(n, True) for n in nodes) + sfx + "\n" + closure(nodes, defs, values, True)
        out[cid] = (own, own + "\n" + closure(nodes, defs, values, False), helpers)
    return out

_verdicts = {}
def verdict(commit: str | None, cid: str) -> str:
    if commit not in _verdicts:
        text = show(commit, LEDGER) if commit else None
        _verdicts[commit] = pd.read_csv(StringIO(text)).set_index("id").verdict.to_dict() if text else {}
    v = _verdicts[commit].get(cid, "")
    return "" if pd.isna(v) else v

def history_table(ids, codes, parents, info, start, level) -> pd.DataFrame:
    i, rows = LEVELS.index(level), []
    for cid in ids:
        c = start
        while same := [p for p in parents[c] if cid in codes[p] and codes[p][cid][i] == codes[c][cid][i]]:
            c = same[0]
        n = sum(cid in codes[x] and any(cid in codes[p] for p in parents[x])
                and all(codes[p].get(cid, (None,) * 3)[i] != codes[x][cid][i] for p in parents[x]) for x in codes)
        first_parent = git("rev-list", "--parents", "-n1", c).split()[1:2]
        rows.append(dict(id=cid, coded_commit=info[c][0], coded_date=info[c][1],
                         earlier_verdict=verdict(first_parent[0] if first_parent else None, cid),
                         head_verdict=verdict(HEAD, cid), n_changes=n))
    return pd.DataFrame(rows)

def run_set_dates() -> pd.DataFrame:
    files = git("ls-tree", "-r", "--name-only", HEAD, "figures").split()
    sets = sorted({m[1] for f in files if (m := re.match(r"figures/([^/]+)/summaries/", f))})
    rows = []
    for rs, folder in [("demo", "figures/summaries")] + [(s, f"figures/{s}/summaries") for s in sets]:
        adds = [a.split() for a in git("log", "--diff-filter=A", "--format=%h %cI", HEAD, "--",
                                       f"{folder}/*.csv").splitlines()]
        first = min(adds, key=lambda a: pd.Timestamp(a[1])) if adds else ["", ""]
        info = show(HEAD, f"{folder}/run_info.json")
        rows.append(dict(run_set=rs, first_commit=first[0], first_date=first[1],
                         run_info_date=json.loads(info).get("date", "") if info else ""))
    return pd.DataFrame(rows)

def run_parts() -> tuple:
    "RUN_PARTS as grok_nb/ledger.py defines it at HEAD."
    st = next(s for s in ast.parse(show(HEAD, "grok_nb/ledger.py")).body
              if isinstance(s, ast.Assign) and any(getattr(t, "id", "") == "RUN_PARTS" for t in s.targets))
    return eval(compile(ast.Expression(st.value), "RUN_PARTS", "eval"), {"__builtins__": {"range": range}})

def main():
    global HEAD
    HEAD = git("rev-parse", sys.argv[1] if len(sys.argv) > 1 else "HEAD").strip()
    print(f"history of {NB} up to {HEAD[:7]}", file=sys.stderr, flush=True)
    log = [x.split() for x in git("rev-list", "--topo-order", "--reverse", "--parents", HEAD, "--", NB).splitlines()]
    parents = {c: ps for c, *ps in log}
    info = {c: (h, d) for c, h, d in (x.split() for x in git("log", "--format=%H %h %cI", HEAD).splitlines())}
    codes = {c: codings(c) for c in parents}                                    # oldest first
    start = git("rev-list", "-n1", HEAD, "--", NB).strip()
    head = pd.read_csv(StringIO(show(HEAD, LEDGER)))
    missing, new = set(head.id) - set(codes[start]), [i for i in codes[start] if i not in set(head.id)]
    if missing: print(f"warning: no coding found at HEAD for {sorted(missing)}", file=sys.stderr)
    if new: print(f"note: coded at HEAD, not yet in its {LEDGER}: {new}", file=sys.stderr, flush=True)
    tables = {lv: history_table([i for i in head.id if i in codes[start]] + new, codes, parents, info, start, lv)
              for lv in LEVELS}
    for lv, t in tables.items():
        t.to_csv("/tmp/codings_history.csv" if lv == "claim" else f"/tmp/codings_history_{lv}.csv", index=False)
    rsd = run_set_dates()
    rsd.to_csv("/tmp/run_set_dates.csv", index=False)
    first = dict(zip(rsd.run_set, rsd.first_date))
    parts = {f"profile-{n}": [f"profile-{m}" for m in p[: p.index(n) + 1]] for p in run_parts() for n in p}
    ph = head[["id", "source"]].assign(run_set=head.source.str.split("/").str[0])
    ph["data_sets"] = [(lambda p: "+".join(p) if len(p) < 3 else f"{p[0]}..{p[-1]}")(parts.get(r, [r]))
                       for r in ph.run_set]
    ph["data_date"] = [min((first[x] for x in parts.get(r, [r]) if first.get(x)), key=pd.Timestamp, default="")
                       for r in ph.run_set]
    for lv, t in tables.items():
        sfx = "" if lv == "claim" else f"_{lv}"
        ph = ph.merge(t[["id", "coded_commit", "coded_date"]].add_suffix(sfx).rename(columns={f"id{sfx}": "id"}),
                      on="id", how="left")
        ph[f"post_hoc{sfx}"] = [bool(d and c) and pd.Timestamp(c) >= pd.Timestamp(d)
                                for c, d in zip(ph[f"coded_date{sfx}"].fillna(""), ph.data_date)]
    ph = ph.merge(tables["claim"][["id", "earlier_verdict", "head_verdict"]], on="id")
    ph.to_csv("/tmp/codings_posthoc.csv", index=False)
    cols = ["id", "data_sets", "data_date", "coded_commit", "coded_commit_names", "coded_commit_helpers",
            "earlier_verdict", "head_verdict"]
    with pd.option_context("display.width", 250, "display.max_columns", 20, "display.max_colwidth", 40):
        print(ph[ph.post_hoc | ph.post_hoc_names | ph.post_hoc_helpers][cols].to_string(index=False))

if __name__ == "__main__":
    main()
