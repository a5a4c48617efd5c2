"""nbdev 2 style setup: every setting lives in settings.ini."""
from configparser import ConfigParser
import setuptools

assert int(setuptools.__version__.split(".")[0]) >= 36, "setuptools too old"
config = ConfigParser(delimiters=["="])
config.read("settings.ini", encoding="utf-8")
cfg = config["DEFAULT"]

licenses = {"apache2": ("Apache Software License 2.0", "OSI Approved :: Apache Software License")}
requirements = cfg.get("requirements", "").split()
dev_requirements = cfg.get("dev_requirements", "").split()
dist_requirements = cfg.get("dist_requirements", "").split()
console_scripts = cfg.get("console_scripts", "").split()

setuptools.setup(
    name=cfg["lib_name"],
    version=cfg["version"],
    description=cfg["description"],
    author=cfg["author"],
    author_email=cfg["author_email"],
    license=licenses[cfg["license"]][0],
    classifiers=["Programming Language :: Python :: 3", "License :: " + licenses[cfg["license"]][1]],
    url=cfg["git_url"],
    packages=setuptools.find_packages(include=[cfg["lib_name"], cfg["lib_name"] + ".*"]),
    include_package_data=True,
    install_requires=requirements,
    extras_require={"dev": dev_requirements + dist_requirements, "dist": dist_requirements},
    python_requires=">=" + cfg["min_python"],
    long_description=open("README.md", encoding="utf-8").read() if __import__("os").path.exists("README.md") else "",
    long_description_content_type="text/markdown",
    zip_safe=False,
    entry_points={"console_scripts": console_scripts, "nbdev": [f"{cfg['lib_path']}={cfg['lib_path']}._modidx:d"]},
)
