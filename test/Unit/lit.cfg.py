# -*- Python -*-
# lit configuration that runs every gtest binary (named *Tests) under
# build/unittests as part of check-spperm.

import os

import lit.formats

config.name = "SPPERM-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.spperm_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(config.llvm_build_mode, "Tests")
