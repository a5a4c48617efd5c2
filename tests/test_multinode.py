"""A study across nodes, through the code path a SLURM job takes: two localhost "nodes", each a task as submitit starts
it (SUBMITIT_EXECUTOR=slurm and SLURM_* in its environment), both running the same pickled `slurm.StudyJob`. Node 0
runs the study notebook; node 1 follows its training (`train.follow_launches`); the model trains as one DDP job over
both, and its losses equal one process's within 1e-5, under the same run id (nnodes is how a run executes, not what
it computes)."""
import json, os, pickle, socket, subprocess, sys
from pathlib import Path
from grok_nb.slurm import StudyJob
from grok_nb.sweep import run_study

BASE = dict(steps=6, eval_every=3, n_docs=200, n_valid=40, eval_batches=1, n_align=8, c=2, seed=1)
TASK = ("import json, pickle, sys\n"
        "job, args = pickle.load(open(sys.argv[1], 'rb'))\n"
        "print('RECORD ' + json.dumps(job(*args), default=str))\n")


def losses(path) -> list[tuple]:
    "(step, training loss) of the logged steps, and (step, validation loss) of the evaluations."
    lines = (Path(path) / "metrics.jsonl").read_text().splitlines()
    return [(r["step"], r["loss"] if r.get("event") is None else r["val_loss"]) for r in map(json.loads, lines)
            if "loss" in r or r.get("event") == "eval"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def slurm_task(k: int, port: int) -> dict:
    "The environment srun gives task `k` of a 2-node job with one task per node (what submitit reads)."
    env = {**os.environ, "SUBMITIT_EXECUTOR": "slurm", "SLURM_JOB_ID": "777", "SLURM_PROCID": str(k),
           "SLURM_NTASKS": "2", "SLURM_JOB_NUM_NODES": "2", "SLURM_NODEID": str(k), "SLURM_LOCALID": "0",
           "SLURM_JOB_NODELIST": "localhost", "GROK_NB_RDZV_PORT": str(port)}
    for v in ("SLURM_RESTART_COUNT", "GROK_NB_NODE_RANK", "GROK_NB_RDZV_ENDPOINT", "GROK_NB_JOB", "GROK_NB_LAUNCH_KEY"):
        env.pop(v, None)
    return env


def test_a_study_across_two_nodes_matches_one_process(tmp_path):
    one = run_study("compartments", BASE, runs_dir=tmp_path / "one")
    assert one["status"] == "finished", one
    job_file = tmp_path / "job.pkl"
    with open(job_file, "wb") as f:
        pickle.dump((StudyJob(), ("compartments", {**BASE, "nnodes": 2, "device": "cpu"}, str(tmp_path / "two"))), f)
    port = free_port()
    procs = [subprocess.Popen([sys.executable, "-c", TASK, str(job_file)], env=slurm_task(k, port), text=True,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT) for k in (0, 1)]
    outs = [p.communicate(timeout=900)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    node0, node1 = (json.loads(next(s for s in o.splitlines() if s.startswith("RECORD "))[7:]) for o in outs)
    assert node0["status"] == "finished" and node1["status"] == "followed", (node0, node1)
    assert node1["launches"] == 1 and node1["node_rank"] == 1, node1           # one training, joined by node 1
    assert node0["run_id"] == node1["run_id"] == one["run_id"]                 # the same run, executed otherwise
    l1, l2 = losses(one["path"]), losses(node0["path"])
    assert [s for s, _ in l1] == [s for s, _ in l2] and len(l1) >= 5, (l1, l2)
    assert max(abs(a - b) for (_, a), (_, b) in zip(l1, l2)) < 1e-5, list(zip(l1, l2))
    res = json.loads((Path(node0["path"]) / "results.json").read_text())
    assert res["launch"]["launcher"] == "torchrun" and res["launch"].get("nnodes") == 2, res["launch"]
    stored = json.loads((Path(node0["path"]) / "params.json").read_text())
    assert stored["execution"]["nnodes"] == 2 and "nnodes" not in stored["params"], stored
    launches = Path(node0["path"]) / "_launch"
    assert (launches / "777.0.end").exists() and (launches / "777.0.0" / "node1.log").exists()
    assert not (launches / "777.0.0" / "spec.pkl").exists()                     # the spec does not outlive its launch


FAKE_SBATCH = '''#!/bin/sh
n=$(ls "$FAKE_SLURM_RECORD" | wc -l)
cp "$1" "$FAKE_SLURM_RECORD/job$n.sh"
echo "Submitted batch job $((4300 + n))"
'''


def test_sweep_asks_slurm_for_the_nodes_and_refuses_a_mismatch(tmp_path, monkeypatch, capsys):
    """With a stand-in sbatch: `-p nnodes=2 --nodes 2` is one job on two nodes with one task each (#SBATCH lines);
    nnodes without --nodes, or --nodes without nnodes, is refused before anything is queued."""
    from grok_nb.jobs import main
    bindir, rec = tmp_path / "bin", tmp_path / "sbatch_scripts"
    bindir.mkdir(), rec.mkdir()
    (bindir / "sbatch").write_text(FAKE_SBATCH)
    (bindir / "srun").write_text("#!/bin/sh\nexit 0\n")
    for f in bindir.iterdir(): f.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_SLURM_RECORD", str(rec))
    runs = ["--runs-dir", str(tmp_path / "runs")]
    assert main(["sweep", "compartments", "-p", "nnodes=2", "--executor", "slurm", "--no-wait", *runs]) == 2
    assert "nnodes=2, but the job requests 1 node(s): request --nodes 2" in capsys.readouterr().err
    assert main(["sweep", "compartments", "--executor", "slurm", "--nodes", "2", "--no-wait", *runs]) == 2
    assert "set -p nnodes=2 (else one node trains, the others idle)" in capsys.readouterr().err
    assert list(rec.iterdir()) == []                                            # nothing was queued
    assert main(["sweep", "compartments", "-p", "nnodes=2", "--executor", "slurm", "--nodes", "2", "--no-wait",
                 *runs]) == 0, capsys.readouterr()
    script = (rec / "job0.sh").read_text()
    assert "#SBATCH --nodes=2\n" in script and "#SBATCH --ntasks-per-node=1\n" in script, script
