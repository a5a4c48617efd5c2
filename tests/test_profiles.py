"""The CPU profiles are data (profiles/<name>.yaml, read by grok_nb.jobs): the files must give exactly the runs the
profiles had when they were Python functions (nbs/90a_jobs.ipynb before issue #32's item 4), so that no run of a
profile already made is orphaned and none is run twice under a new id. tests/fixtures/profile_run_ids.json holds, for
every profile, the run ids of its jobs in order (each hashes the study and its full parameters, defaults included),
a hash of the parameters as the profile gives them, its reports and its runs folder; it was written from the Python
functions' jobs on main at a969d1a.

A profile changed on purpose (a new seed, another c) changes its run ids: rewrite the fixture from the files with
`python tests/test_profiles.py --write` and commit it with the change, so that the diff shows which runs are new."""
import hashlib, json, os, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "profile_run_ids.json"


def fingerprint(profiles: dict) -> dict:
    """name -> (jobs, reports, runs folder's profile) to what the fixture holds: the run ids in order (as `run_plan`
    computes them: the study's defaults overlaid with the job's parameters, neutral parameters left out) and a hash
    of the jobs' parameters as given (`core.canonical_params`, which tells 0 from 0.0)."""
    from grok_nb.core import run_id, canonical_params
    from grok_nb.sweep import resolve_params, identity_params, study_defaults
    defaults, out = {}, {}
    for name, (jobs, reports, runs) in profiles.items():
        ids = []
        for study, p in jobs:
            if study not in defaults: defaults[study] = study_defaults(study)
            ids.append(run_id(study, identity_params(study, resolve_params(study, p, defaults[study]))))
        given = "\n".join(f"{study}\t{canonical_params(p)}" for study, p in jobs)
        out[name] = {"reports": list(reports), "runs": runs, "n_jobs": len(jobs),
                     "params_sha256": hashlib.sha256(given.encode()).hexdigest(), "run_ids": ids}
    return out


def from_files() -> dict:
    "Every profile's jobs, reports and runs folder, from profiles/*.yaml."
    from grok_nb.jobs import load_profiles, profile_jobs
    return {n: (profile_jobs(n), p.reports, p.runs) for n, p in load_profiles().items()}


def test_profile_files_give_the_pinned_runs():
    want, got = json.loads(FIXTURE.read_text()), fingerprint(from_files())
    assert sorted(got) == sorted(want), f"profiles: files {sorted(got)}, fixture {sorted(want)}"
    diff = [f"{n}: {k}" for n in sorted(want) for k in want[n] if got[n][k] != want[n][k]]
    assert not diff, ("profile files no longer give the pinned runs (a deliberate change: python "
                      f"tests/test_profiles.py --write):\n" + "\n".join(diff))


def test_every_profile_file_is_a_make_target():
    "`make profile-<name>` runs `grok-nb profile <name>` for every file, without editing the Makefile."
    from grok_nb.jobs import PROFILES
    targets = [f"profile-{n}" for n in sorted(PROFILES)]
    r = subprocess.run(["make", "-n", "--no-print-directory", *targets], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cmds = [line.split("grok-nb ", 1)[1] for line in r.stdout.splitlines() if "/grok-nb profile " in line]
    assert cmds == [f"profile {n}" for n in sorted(PROFILES)], r.stdout


def test_the_cli_lists_the_profiles_and_refuses_an_unknown_one():
    r = subprocess.run([sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())", "profile",
                        "--help"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "profiles (each profiles/<name>.yaml" in r.stdout, r.stdout
    assert "\n  c-trans: Study C's translation profile" in r.stdout, r.stdout
    r = subprocess.run([sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())", "profile",
                        "zz"], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 2 and "invalid choice: 'zz'" in r.stderr, r.stderr



def test_one_bad_profile_fails_only_the_commands_that_use_it(tmp_path):
    """A profile file that does not load (bad YAML here) leaves every other command working; `grok-nb profile` on it
    says why in one line naming the file, and `--list` shows it as unreadable."""
    import shutil
    folder = tmp_path / "profiles"
    shutil.copytree(ROOT / "profiles", folder)
    (folder / "zz-bad.yaml").write_text("description: x\nstudy: [unclosed\n")
    env = {**os.environ, "GROK_NB_PROFILES_DIR": str(folder)}
    cli = lambda *a: subprocess.run([sys.executable, "-c", "from grok_nb.jobs import main; raise SystemExit(main())",  # noqa: E731
                                     *a], cwd=ROOT, capture_output=True, text=True, env=env)
    r = cli("params", "grokking")
    assert r.returncode == 0 and "grokking: " in r.stdout, r.stderr
    r = cli("profile", "zz-bad")
    lines = r.stderr.strip().splitlines()
    assert r.returncode == 2 and len(lines) == 1, r.stderr
    assert lines[0].endswith("zz-bad.yaml: not valid YAML: expected ',' or ']', but got '<stream end>' (line 3, column 1)")
    r = cli("profile", "--list")
    assert r.returncode == 0 and "cannot be read:" in r.stdout and "c-init2" in r.stdout, r.stdout

if __name__ == "__main__" and sys.argv[1:] == ["--write"]:
    FIXTURE.write_text(json.dumps(dict(sorted(fingerprint(from_files()).items())), indent=1) + "\n")
    print(f"wrote {FIXTURE}")
