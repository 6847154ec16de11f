# -*- Python -*-
# lit configuration of the spperm regression suite.

import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "SPPERM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "two-layers.mlir"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.spperm_obj_root, "test")

# Fail a CHECK on a variable defined under another label.
config.environment["FILECHECK_OPTS"] = "--enable-var-scope"

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(
    ("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%spperm_src_root", config.spperm_src_root))
config.substitutions.append(("%spperm_obj_root", config.spperm_obj_root))
config.substitutions.append(("%spperm_tools_dir", config.spperm_tools_dir))
# Debian's python3, which has numpy and scipy (tools/scripts/setup.sh).
config.substitutions.append(("%spperm_python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
# No progress lines from long stages (spperm-compile) in the tests' stderr,
# however slow the machine or the build (sanitizers); progress.test asks
# for them.
config.environment["SPPERM_PROGRESS_SECONDS"] = "1e9"
# GPU tests time the candidates at every first call and never read or write
# the user's tuning cache (docs/RuntimeABI.md, "Tuning cache").
config.environment["SPRT_TUNING_CACHE"] = "off"
llvm_config.use_default_substitutions()

# GPU tests ask for `REQUIRES: cuda-device`; elsewhere lit reports them as
# UNSUPPORTED, never as passed.
if config.enable_cuda and os.path.exists("/dev/nvidia0"):
    config.available_features.add("cuda-device")
# The sanitizer build (tools/scripts/sanitize.sh): its libraries need an
# instrumented executable, so tests that build an outside application
# against the installed runtime say `UNSUPPORTED: sanitized`.
if config.sanitized:
    config.available_features.add("sanitized")
# Debian's chromium (tools/scripts/setup.sh installs it) renders the compile
# report headless in report.test.
if os.path.exists("/usr/bin/chromium"):
    config.available_features.add("chromium")

# The Python package, where the build made it (build/venv's interpreter,
# tools/scripts/setup.sh): tests of its installation ask for `python-module`.
venv_python = os.path.join(config.spperm_obj_root, "venv", "bin", "python")
if os.path.exists(os.path.join(config.spperm_obj_root, "python", "spperm",
                               "__init__.py")) and os.path.exists(venv_python):
    config.available_features.add("python-module")
    config.substitutions.append(("%spperm_venv_python", venv_python))

tool_dirs = [config.spperm_tools_dir, config.llvm_tools_dir]
tools = ["spperm-opt", "spperm-inspect", "spperm-gen", "spperm-compile", "spperm-run",
         "spperm-verify"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
llvm_config.with_environment("PATH", config.spperm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
