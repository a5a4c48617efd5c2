# The README's two commands are `make demo` and `make test`; each installs what it needs.
SHELL := /bin/bash
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export OMP_NUM_THREADS ?= 2
# notebook tests run two workers on two cores: one thread each avoids oversubscription (50-100x slowdowns seen)
test: export OMP_NUM_THREADS = 1
export TOKENIZERS_PARALLELISM := false
export PYTHONHASHSEED := 0

# grok_nb's own bytecode, compiled once before the many kernels and workers of a demo or a test run import it: the
# install compiles the dependencies', but not the editable package's, and where PYTHONDONTWRITEBYTECODE is set each
# process would compile grok_nb again (a stale .pyc is never used: Python checks the source's time and size)
BYTECODE = $(BIN)/python -m compileall -q grok_nb

.PHONY: demo test export clean docs docs-check bench install lab lab-check lint readme profile

# the install (.ci/install.sh): uv with this machine's pip configuration, pip if uv fails
$(STAMP): setup.py settings.ini .ci/install.sh
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	bash .ci/install.sh $(VENV)
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# nbdev's hooks (nbdev_install_hooks): a Jupyter pre-save hook in ~/.jupyter that cleans a notebook every time
# JupyterLab saves it (it acts because settings.ini has jupyter_hooks = True), so a notebook saved in Lab passes
# `make test`'s sync check; in a plain clone also git's notebook merge driver and a post-merge nbdev_trust, pointed
# at this venv's commands (a merge run outside the venv would otherwise find no nbdev_merge and conflict on every
# notebook). In a git worktree (.git is a file) nbdev cannot write git hooks: there only the Jupyter hook is installed.
install: $(STAMP)
	if [ -d .git ]; then \
	  $(BIN)/nbdev_install_hooks && \
	  git config --file .gitconfig merge.nbdev-merge.driver "$(CURDIR)/$(BIN)/nbdev_merge %O %A %B %P" && \
	  printf '#!/bin/bash\n"%s/nbdev_trust"\n' "$(CURDIR)/$(BIN)" > .git/hooks/post-merge; \
	else $(BIN)/nbdev_install_hooks >/dev/null 2>&1 || echo "make install: a git worktree: nbdev's git hooks need a clone"; fi
	grep -qs nbdev_clean_jupyter $(HOME)/.jupyter/jupyter_server_config.py || \
	  { echo "make install: nbdev's clean-on-save hook is missing from ~/.jupyter/jupyter_server_config.py"; exit 1; }

# JupyterLab in the venv, from the repository root, on 127.0.0.1:$(LAB_PORT) (open the URL with the token it prints;
# --allow-root when run as root). Study notebooks show their figures and training bars; saving a notebook under nbs/
# writes it as the repository stores it, without outputs (.jupyter/jupyter_server_config.py: the user's own Jupyter
# configuration, then grok_nb.notebooks.lab_pre_save), so a save leaves the tree clean; other notebooks keep outputs.
LAB_PORT ?= 8888
lab: install
	$(BIN)/jupyter lab --config=$(CURDIR)/.jupyter/jupyter_server_config.py --no-browser --ip=127.0.0.1 \
	  --port=$(LAB_PORT) $$([ "$$(id -u)" = 0 ] && echo --allow-root)

# JupyterLab in headless Chromium (apt-get install -y chromium chromium-driver), as a user works in it: a copy of
# nbs/emergence/study_sparse_attention.ipynb at its defaults is opened and run through Lab's menus, and the check
# asserts that its figures show as images, a progress widget shows and ends full, no error or stderr box shows, and
# that saving (make lab's hook) wrote the committed file byte for byte; screenshots go to LAB_SHOTS. 63-78 s on 2 busy
# cores, so not part of `make test`.
LAB_SHOTS ?= _lab_check
lab-check: install
	OMP_NUM_THREADS=1 $(BIN)/python docs/lab_check.py --shots $(LAB_SHOTS)

# the main job: all three studies at CPU scale on the embedded default, figures into figures/
demo: $(STAMP)
	$(BYTECODE)
	$(BIN)/grok-nb demo
	$(MAKE) --no-print-directory readme

# CPU profiles: the runs behind a study's claims that do not fit the demo (each <= 2 h on 2 cores), one a file:
# profiles/<name>.yaml holds a profile's groups of runs and a description of what it runs and why (the designs they
# share are profiles/_designs.yaml; `grok-nb profile --help` lists the profiles); figures into
# figures/profile-<name>/, runs into runs/profile-<name>/ (or the profile folder its `runs:` names). A new file is a
# new target, make profile-<name>.
PROFILES := $(patsubst profiles/%.yaml,profile-%,$(filter-out profiles/_%,$(sort $(wildcard profiles/*.yaml))))
.PHONY: $(PROFILES)
$(PROFILES): $(STAMP)
	$(BIN)/grok-nb profile $(subst profile-,,$@)

# make profile NAME=<name> runs one too; without NAME it lists them (runs, measured wall time, summary)
profile: $(STAMP)
	$(BIN)/grok-nb profile $(if $(NAME),$(NAME),--list)

# notebooks/export in sync, notebooks clean, notebook tests, pytest suites (two workers, pytest-xdist; a free worker
# takes queued tests from the busy one, and the 15 slowest are listed, to watch the 15-min budget); nbdev_test
# runs the library notebooks and the tutorials, not the study and report notebooks (study_*, report_*: they train
# models or read finished runs; tests/ runs the studies at small sizes), nor files and folders starting with _ or .
test: $(STAMP)
	bash .ci/check_sync.sh
	$(BYTECODE)
	$(BIN)/ruff check grok_nb nbs
	$(BIN)/nbdev_test --n_workers 2 --timing --skip_folder_re "^[_.]" --skip_file_re "^([_.]|study_|report_)"
	$(BIN)/python -m pytest -q -n 2 --dist worksteal --durations 15 tests

# the house rule (pyproject.toml): lines of at most 120 characters, no `;`-joined statements
lint: $(STAMP)
	$(BIN)/ruff check grok_nb nbs

export: $(STAMP)
	$(BIN)/nbdev_export
	$(BIN)/nbdev_clean

# the nbdev site needs the quarto binary; PyPI's quarto-cli fetches it from GitHub at install time. Without it (or with
# DOCS_ENGINE=sphinx) docs/build_site.py builds the site offline: nbdev's processed notebooks (library ones executed)
# rendered by Sphinx (myst-nb, PyData theme) into _docs/, navigation from nbs/sidebar.yml, full-text search. Its
# executed notebooks are cached in _docs_build/ (a rebuild executes only what changed). The build is exec'd, so that
# the SIGTERM make forwards to its recipe's process reaches it and stops it and its kernels.
# quarto-cli is tried once per venv (offline its build fails after about a minute): .venv/.quarto-tried records it.
DOCS_ENGINE ?= auto
QUARTO_TRIED := $(VENV)/.quarto-tried
docs: $(STAMP)
	if [ "$(DOCS_ENGINE)" != sphinx ] && { command -v quarto >/dev/null || test -x $(BIN)/quarto || { test ! -e $(QUARTO_TRIED) \
	    && touch $(QUARTO_TRIED) && $(BIN)/python -m pip install -q 'quarto-cli' 2>/dev/null && test -x $(BIN)/quarto; }; }; then \
	  PATH="$(CURDIR)/$(BIN):$$PATH" exec $(BIN)/nbdev_docs; \
	else echo "make docs: no quarto binary (DOCS_ENGINE=sphinx, or pip's quarto-cli failed once in this venv: rm $(QUARTO_TRIED)" \
	  "to try again): building the offline site with Sphinx"; \
	  exec env OMP_NUM_THREADS=1 $(BIN)/python docs/build_site.py; fi

# the offline site in headless Chromium (apt-get install -y chromium chromium-driver): navigation, an API entry,
# search, and no page with a `#|` directive, a stderr box or a request outside the site
docs-check: $(STAMP)
	test -f _docs/index.html || $(MAKE) docs DOCS_ENGINE=sphinx
	$(BIN)/python docs/check_site.py --site _docs

bench: $(STAMP)
	for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

clean:
	rm -rf _docs _docs_build _proc .pytest_cache
	find . -name __pycache__ -prune -exec rm -rf {} +

# the README's numbers come from the demo's summaries (figures/summaries/, copied there by `make demo`): the values
# go into the markers of nbs/index.ipynb, which is converted to README.md (docs/render_readme.py; tests/test_readme.py
# fails when the committed README and summaries disagree)
readme: $(STAMP)
	$(BIN)/python -c "from grok_nb.ledger import write_ledger; write_ledger()"
	$(BIN)/python docs/render_readme.py
