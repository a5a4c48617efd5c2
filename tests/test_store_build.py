"""Two processes that build the same token store at the same time (as the array jobs of a sweep do) wait for one
build and open it: the source is read once, both get the same complete store, and no .partial folder is left."""
import os, subprocess, sys
from pathlib import Path

BUILDER = '''
import sys, time
from grok_nb.data import load_tokenizer
from grok_nb.store import build_store
root, tokdir, log = sys.argv[1], sys.argv[2], sys.argv[3]
def source():
    with open(log, "a") as f: f.write("read\\n")              # one line per pass over the source
    for i in range(300):
        if i % 50 == 0: time.sleep(0.2)                       # slow enough for the other builder to arrive mid-build
        yield " ".join(f"w{(i * 7 + j) % 97}" for j in range(20))
st = build_store(source, load_tokenizer(tokdir), root, name="race", chunk_docs=25, shard_tokens=2000, progress=False)
print(st.path, st.n_docs, st.token_sha)
'''

def test_two_processes_racing_build_one_store(tmp_path):
    from grok_nb.data import train_tokenizer
    tok = train_tokenizer([" ".join(f"w{k}" for k in range(97))], 128, kind="word")
    tok.save_pretrained(tmp_path / "tok")
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    args = [str(tmp_path / "stores"), str(tmp_path / "tok"), str(tmp_path / "reads.log")]
    procs = [subprocess.Popen([sys.executable, "-c", BUILDER, *args], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs): assert p.returncode == 0, err
    (a, b) = [out.split() for out, _ in outs]
    assert a == b and a[1] == "300", (a, b)                                     # the same store, all documents
    assert (tmp_path / "reads.log").read_text() == "read\n"                       # built once
    assert sum("another process is building it; waiting" in err for _, err in outs) == 1, [e for _, e in outs]
    assert [p.name for p in (tmp_path / "stores").iterdir() if not p.name.startswith(".")] == [Path(a[0]).name]
