"""The wheel of make dist, built offline by ext/packaging/wheel.sh.

Run in the tree wheel.sh stages (this file, README.md, COPYRIGHT and
sqlite_bloom/ with bloom.so in it) with BLOOM_VERSION and the project's
links (BLOOM_HOMEPAGE, BLOOM_REPOSITORY, BLOOM_ISSUES) set: Debian's
python3-setuptools and python3-wheel, no network.  The module is a C
library for one platform but no Python extension module, so the wheel is
tagged py3-none-<platform>: any Python 3 on that platform installs it
(wheel.sh gives the platform, with bdist_wheel --plat-name).
"""

# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.

import os

from setuptools import setup
from setuptools.dist import Distribution
from wheel.bdist_wheel import bdist_wheel


class BinaryDistribution(Distribution):
    """Holds a platform's binary: built as platform files, not pure ones."""

    def has_ext_modules(self):
        return True


class PlatformWheel(bdist_wheel):
    """A wheel for this platform that any Python 3 ABI may use."""

    def get_tag(self):
        return ("py3", "none", super().get_tag()[2])


with open("README.md", encoding="utf-8") as readme:
    long_description = readme.read()

setup(
    name="sqlite-bloom",
    version=os.environ["BLOOM_VERSION"],
    description="Bloom and cuckoo filters for SQLite: the bloom extension, "
                "with loadable_path() and load(conn)",
    long_description=long_description,
    long_description_content_type="text/markdown",
    url=os.environ["BLOOM_HOMEPAGE"],
    project_urls={
        "Homepage": os.environ["BLOOM_HOMEPAGE"],
        "Source": os.environ["BLOOM_REPOSITORY"],
        "Issues": os.environ["BLOOM_ISSUES"],
    },
    license="Public domain (see COPYRIGHT)",
    license_files=["COPYRIGHT"],
    classifiers=[
        "License :: Public Domain",
        "Operating System :: POSIX :: Linux",
        "Programming Language :: Python :: 3",
        "Programming Language :: SQL",
        "Topic :: Database",
    ],
    packages=["sqlite_bloom"],
    package_data={"sqlite_bloom": ["bloom.so"]},
    python_requires=">=3.8",
    zip_safe=False,
    distclass=BinaryDistribution,
    cmdclass={"bdist_wheel": PlatformWheel},
)
