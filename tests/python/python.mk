# The Debian package the Python tests need beyond python3: sqlite-utils,
# whose command tests/browsers.t drives as a generic table browser on the
# stores (make test installs it, as root, before the scripts run).
#
# bloom is dedicated to the public domain by its authors: anyone may use,
# copy, modify and distribute it, for any purpose, without asking.  Where
# the law does not allow that dedication, the authors give everyone the
# same permission.  bloom is provided as is, without warranty of any
# kind, express or implied; its authors are not liable for any claim or
# damage arising from its use.
.PHONY: python-deps

test-plain test-asan: python-deps

python-deps:
	@$(MAKE) -s deps DEB_PACKAGES="sqlite-utils"
