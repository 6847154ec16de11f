"""Makes a package's manifest record its source files' current SHA-256, as
if it had been compiled from them as they are now (resealing the
manifest_sha256 line as docs/Package.md, "Manifest checksum", says a tool
that edits a manifest must): spperm-verify then takes the edited sources as
the reference.

  record_source.py PKG
"""
import hashlib
import json
import sys

TAIL = ',\n  "manifest_sha256"'


def main():
    path = sys.argv[1] + "/manifest.json"
    text = open(path, encoding="utf-8").read()
    manifest = json.loads(text[:text.rindex(TAIL)] + "\n}")
    for layer in manifest["layers"]:
        source = layer["source"]
        with open(source["path"], "rb") as f:
            source["sha256"] = hashlib.sha256(f.read()).hexdigest()
    head = json.dumps(manifest, indent=2, ensure_ascii=False)[:-2] + ",\n  "
    digest = hashlib.sha256(head.encode("utf-8")).hexdigest()
    with open(path, "w", encoding="utf-8") as f:
        f.write(head + '"manifest_sha256": "%s"\n}\n' % digest)


if __name__ == "__main__":
    main()
