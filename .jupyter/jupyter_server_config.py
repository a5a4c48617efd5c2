# JupyterLab for this repository: `make lab` starts Lab with this file (--config), which replaces the search of the
# usual configuration folders, so the user's own configuration (~/.jupyter, where `make install` puts nbdev's hook) is
# read first, then one pre-save hook is set: a notebook under nbs/ is saved as the repository stores it, without
# outputs (grok_nb.notebooks.lab_pre_save; the figures stay in runs/<study>/<id>/figures/), and any other notebook
# gets nbdev's cleaning, outputs kept.
from jupyter_core.paths import jupyter_config_dir

load_subconfig("jupyter_server_config.py", path=jupyter_config_dir())  # noqa: F821 (given by traitlets)


def _grok_nb_pre_save(model, path, contents_manager=None, **kwargs):
    from grok_nb.notebooks import lab_pre_save
    lab_pre_save(model, path, contents_manager, **kwargs)


c.ContentsManager.pre_save_hook = _grok_nb_pre_save  # noqa: F821 (given by traitlets)
