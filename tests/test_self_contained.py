"""The repository stands alone: no tracked file reads from, or points the reader to, a folder beside the repository
(the sibling `shared/` the samples once came from) or an absolute path of one machine, and none cites the design
notes that are not part of it. The real samples live in `data/` and are reached through `grok_nb.core.data_dir()`.

The patterns are spelled so that this file does not match them itself."""
import re, subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FORBIDDEN = {
    "a path to the sibling shared folder": re.compile(r"\.\.[/\\]+shared\b|\bshared[/\\]+data\b"),
    "a path joined onto a 'shared' folder": re.compile(r"""\bparent\s*/\s*['"]shared['"]"""
                                                       r"""|['"]shared['"]\s*/\s*['"]data"""),
    "an absolute path of one machine": re.compile(r"(?<![\w.~-])/(?:wor[k]|roo[t]|hom[e]|User[s]|mn[t])/"
                                                  r"|\b[A-Z]:\\+User[s]\\"),
    "a citation of design notes that are not in the repository": re.compile(r"\bDESIG[N](?:\s*§|\.md\b|\s+section\b)"
                                                                            r"|\bCLAIM[S]\.md\b"),
}


def tracked_text_files():
    "Every file git tracks that reads as UTF-8 text (binary samples, such as data/*.gz, are not text)."
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, out.decode().split("\0")):
        p = ROOT / name
        if not p.is_file(): continue                                      # deleted in the work tree, not committed
        b = p.read_bytes()
        if b"\0" in b: continue
        try: yield name, b.decode("utf-8")
        except UnicodeDecodeError: continue


def offending_lines(text: str):
    "(line number, what, the line) for every forbidden pattern found in `text`."
    for i, line in enumerate(text.splitlines(), 1):
        for what, pat in FORBIDDEN.items():
            if pat.search(line): yield i, what, line.strip()


def test_the_patterns_catch_what_they_should():
    "The checker itself: each kind of reference is caught, and the legitimate look-alikes are not."
    bad = ["SHARED = Path('../' + 'x')", '"../../sha' 'red"', "Path(__file__).parent / 'sha" "red' / 'x'",
           'Path("/wor' 'k/x/blimp")', "see /hom" "e/me/x", "in sha" "red/da" "ta/blimp", "as in DESIGN" " §7",
           "DESIGN" ".md says", "as in DESIGN" " section 7", "CLAIMS" ".md"]
    found = [bool(list(offending_lines(s))) for s in bad]
    assert found == [False] + [True] * (len(bad) - 1), list(zip(bad, found))
    fine = ['tokenizer = "shared"', "a shared tokenizer", "GROKKING_DESIGN = dict(n_nouns=1500)",
            "data_dir('english')", "run_dir = '/tmp/x'", "the design search of profile a", "~/work/x", "../data/blimp"]
    assert [s for s in fine if list(offending_lines(s))] == []


def test_no_file_points_outside_the_repository():
    names = [n for n, _ in tracked_text_files()]
    assert "nbs/00_core.ipynb" in names and "data/README.md" in names, names[:10]     # the scan sees the repository
    hits = [f"{name}:{i}: {what}: {line[:140]}" for name, text in tracked_text_files()
            for i, what, line in offending_lines(text)]
    assert not hits, (f"{len(hits)} line(s) point outside the repository (the samples are in data/, reached with "
                      "grok_nb.core.data_dir(); give the reasoning instead of citing design notes):\n"
                      + "\n".join(hits))
