"""launch_train: a notebook-style call that runs `train` under torchrun (2 CPU processes, gloo) gives the weights and the
history of the in-process run (losses within 1e-5), standalone and as two nodes meeting through the c10d rendezvous
arguments; a failing source's error reaches the caller. (~2 min on 2 busy cores)"""
import importlib.util, math, sys
import pytest, torch
from grok_nb.core import GrokError, RunDir, read_jsonl
from grok_nb.models import build_model
from grok_nb.train import train, launch_train, train_or_launch, _by_value_modules

def tiny(): return build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)

class Source:
    "Defined in this test module: the children import it by name (the parent's sys.path is passed on)."
    fingerprint = "launch-test"
    def batch(self, step):
        g = torch.Generator().manual_seed(7 + step)
        start = torch.randint(0, 64, (8, 1), generator=g)
        return {"input_ids": (start + torch.arange(16)) % 64}

def penalty(model, batch, out):
    "A small extra loss; `first_tok` differs between the two halves of the batch, so it checks the ranks' average."
    pen = 1e-3 * out.logits.float().pow(2).mean()
    return pen, {"penalty": pen.detach(), "first_tok": batch["input_ids"][:, 0].float().mean()}

def evaluate(model, step): return {"w_sq": sum(float(p.detach().pow(2).sum()) for p in model.parameters())}

def stop_after_eval_4(rec):
    "Stops on an eval record: only rank 0 sees those, so the ranks must follow its decision (else they would hang)."
    return "w_sq" in rec and rec["step"] >= 4

KW = dict(lr=3e-3, progress=False, log_every=1, extra_loss=penalty, eval_fn=evaluate, eval_every=2, checkpoint_steps=[0, 3],
          stop_fn=stop_after_eval_4)

def test_launch_two_processes_match_in_process(tmp_path):
    one = train(tiny(), Source(), 5, run_dir=tmp_path/"one", **KW)
    model = tiny()
    two = train_or_launch(model, Source(), 5, nproc=2, run_dir=tmp_path/"two", device="cpu", timeout=240, **KW)
    assert two["model"] is model and two["steps"] == 5
    assert {k: two["launch"][k] for k in ("launcher", "nproc_per_node", "backend")} == \
        {"launcher": "torchrun", "nproc_per_node": 2, "backend": "gloo"}
    a, b = one["model"].state_dict(), model.state_dict()
    assert a.keys() == b.keys()
    for k in a: torch.testing.assert_close(a[k], b[k], atol=1e-5, rtol=1e-4)
    fresh = tiny().state_dict()
    assert max((fresh[k] - b[k]).abs().max().item() for k in fresh) > 1e-3          # trained weights came back
    h1, h2 = one["history"], two["history"]
    assert [(r["step"], r.get("event")) for r in h1] == [(r["step"], r.get("event")) for r in h2]
    assert [r["step"] for r in h2 if "loss" in r] == [1, 2, 3, 4]                     # stopped after step 4
    assert [r["step"] for r in h2 if "w_sq" in r][:4] == [0, 2, 3, 4]                  # checkpoint and eval_every evals
    for x, y in zip(h1, h2):
        for k in ("loss", "grad_norm", "lr", "penalty", "first_tok"):
            if k in x: assert abs(x[k] - y[k]) < (1e-5 if k == "loss" else 1e-4), (k, x, y)
        if "w_sq" in x: assert math.isclose(x["w_sq"], y["w_sq"], rel_tol=1e-4)
    # rank 0 wrote the run folder exactly as one process would; the launch files were cleaned up but the log kept
    rd = RunDir(tmp_path/"two")
    assert rd.checkpoint_steps() == [0, 3, 4] and len(read_jsonl(rd.metrics_file)) == len(h2)
    assert sorted(p.name for p in (rd.path/"_launch").iterdir()) == ["train.log"]

def test_launch_failure_names_spec_and_child_error(tmp_path):
    # a source from a module loaded by file path: not importable by name, so it must travel by value
    f = tmp_path/"launch_fileonly_src.py"
    f.write_text("class Bad:\n    def batch(self, step):\n        raise RuntimeError(f'source exploded at step {step}')\n")
    spec = importlib.util.spec_from_file_location("launch_fileonly_src", f)
    mod = importlib.util.module_from_spec(spec); sys.modules[spec.name] = mod; spec.loader.exec_module(mod)
    try:
        assert _by_value_modules([mod.Bad(), Source(), penalty]) == ["launch_fileonly_src"]
        f.unlink()                                                                     # the children could not import it
        with pytest.raises(GrokError) as e:
            launch_train(tiny(), mod.Bad(), 3, nproc=2, run_dir=tmp_path/"bad", device="cpu", progress=False, timeout=240)
    finally:
        del sys.modules[spec.name]
    msg = str(e.value)
    assert "RuntimeError: source exploded at step 0" in msg and str(tmp_path/"bad"/"_launch"/"spec.pkl") in msg and "error of rank 0, 1" in msg, msg
    assert "last 30 lines of" in msg

def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]

NODE = '''
import sys, json, torch
from grok_nb.models import build_model
from grok_nb.train import launch_train
class Source:
    fingerprint = "launch-test"
    def batch(self, step):
        g = torch.Generator().manual_seed(7 + step)
        start = torch.randint(0, 64, (8, 1), generator=g)
        return {"input_ids": (start + torch.arange(16)) % 64}
rank, endpoint, out, run_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
m = build_model("gpt-tiny", vocab_size=64, seed=0, n_layers=1, d_model=32, n_heads=2, seq_len=16)
r = launch_train(m, Source(), 4, nproc=1, nnodes=2, node_rank=rank, rdzv_endpoint=endpoint, run_dir=run_dir,
                 device="cpu", lr=3e-3, progress=False, log_every=1, timeout=240)
json.dump({"losses": [x["loss"] for x in r["history"] if "loss" in x], "launch": r["launch"],
           "state": {k: v.tolist() for k, v in m.state_dict().items()}}, open(out, "w"))
'''

def test_two_nodes_through_the_rendezvous_match_one_process(tmp_path):
    """2 gloo processes through torchrun's c10d rendezvous arguments: two "nodes" of one process each on this machine
    (two launch_train calls meeting at one endpoint, as on two hosts; the standalone launch is the test above); the
    losses equal one process's within 1e-5, and every node gets the trained weights back."""
    import json, os, subprocess
    one = train(tiny(), Source(), 4, lr=3e-3, progress=False, log_every=1)
    l1 = [r["loss"] for r in one["history"]]
    endpoint, env = f"127.0.0.1:{_free_port()}", {**os.environ, "OMP_NUM_THREADS": "1"}
    nodes = [subprocess.Popen([sys.executable, "-c", NODE, str(k), endpoint, str(tmp_path / f"node{k}.json"),
                               str(tmp_path / "two")], env=env, stderr=subprocess.PIPE, text=True) for k in (0, 1)]
    for p in nodes: assert p.wait(timeout=300) == 0, p.stderr.read()[-3000:]
    res = [json.loads((tmp_path / f"node{k}.json").read_text()) for k in (0, 1)]
    for r in res:
        assert r["launch"]["nnodes"] == 2 and r["launch"]["nproc_per_node"] == 1, r["launch"]
        assert len(r["losses"]) == 4 and max(abs(a - b) for a, b in zip(l1, r["losses"])) < 1e-5, (l1, r["losses"])
        for k, v in one["model"].state_dict().items():
            torch.testing.assert_close(v, torch.tensor(r["state"][k]), atol=1e-5, rtol=1e-4)
    assert sorted(p.name for p in (tmp_path / "two" / "_launch").iterdir()) == ["node0", "node1"]
    assert RunDir(tmp_path / "two").checkpoint_steps() == [] and len(read_jsonl(tmp_path / "two" / "metrics.jsonl")) == 4
