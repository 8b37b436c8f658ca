"""Tests of python/build_wheel.py's version mapping (the wheel itself is tested by internal/platformtest)."""

from __future__ import annotations

import importlib.util
import os
import unittest

_spec = importlib.util.spec_from_file_location(
    "build_wheel", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build_wheel.py")
)
build_wheel = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_wheel)  # type: ignore[union-attr]


class PEP440(unittest.TestCase):
    def test_release_tags(self):
        for tag, want in [
            ("v0.1.0", "0.1.0"),
            ("v1.2.3-rc.1", "1.2.3rc1"),
            ("v1.2.3-beta.2", "1.2.3b2"),
            ("v1.2.3-alpha.10", "1.2.3a10"),
            ("v0.0.0-test.1", "0.0.0+test.1"),
            ("v1.0.0+build.5", "1.0.0+build.5"),
            ("v1.0.0-rc.1+g1234", "1.0.0rc1+g1234"),
        ]:
            with self.subTest(tag=tag):
                self.assertEqual(build_wheel.pep440(tag), want)

    def test_not_a_release_tag(self):
        for tag in ("1.2", "v1.2.x", "latest"):
            with self.subTest(tag=tag), self.assertRaises(ValueError):
                build_wheel.pep440(tag)


if __name__ == "__main__":
    unittest.main()
