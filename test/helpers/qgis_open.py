"""Opens a QGIS project as a QGIS user would, headless, and reports what QGIS sees (issue 42).

Usage: QGIS_TEST_TOKEN=<token> QT_QPA_PLATFORM=offscreen /usr/bin/python3 qgis_open.py <project.qgz> <profile dir> <authcfg id>

(the token in the environment, not the arguments: a failed run prints its command line)

The token goes into a fresh QGIS authentication database in <profile dir> (never into the
project), as a Basic configuration with the id the project names: what docs/qgis.md tells the
user to do. Then the project is read, and each layer is reported with its validity, CRS, label
settings, field names and every feature's cadastral number and UAT, as one JSON line prefixed RESULT.
"""
import json
import os
import sys

project_path, profile_dir, authcfg = sys.argv[1:4]
token = os.environ["QGIS_TEST_TOKEN"]
os.environ["QGIS_AUTH_DB_DIR_PATH"] = profile_dir

from qgis.core import QgsApplication, QgsAuthMethodConfig, QgsProject  # noqa: E402
from qgis.PyQt.QtCore import QVariant  # noqa: E402


def plain(value):
    """A feature value as JSON can write it: a NULL QVariant is None."""
    return None if isinstance(value, QVariant) and value.isNull() else value


QgsApplication.setPrefixPath("/usr", True)
app = QgsApplication([], False, profile_dir)
app.initQgis()

auth = QgsApplication.authManager()
if not auth.setMasterPassword("qgis-test-master", True):
    sys.exit("could not set the master password of the test authentication database")
cfg = QgsAuthMethodConfig()
cfg.setId(authcfg)
cfg.setName("Geoportal cadastral")
cfg.setMethod("Basic")
cfg.setConfig("username", "qgis")
cfg.setConfig("password", token)
if not cfg.isValid() or not auth.storeAuthenticationConfig(cfg):
    sys.exit("could not store the Basic authentication configuration")

project = QgsProject.instance()
if not project.read(project_path):
    sys.exit("QGIS could not read the project: " + project.error())

layers = []
for layer in project.mapLayers().values():
    labeling = layer.labeling() if layer.labelsEnabled() else None
    settings = labeling.settings() if labeling is not None else None
    refs = []
    sirutas = set()
    error = None
    if layer.isValid():
        names = layer.fields().names()
        for feature in layer.getFeatures():
            refs.append(plain(feature["cadastral_ref"]) if "cadastral_ref" in names else None)
            sirutas.add(plain(feature["siruta"]))
        if layer.dataProvider().hasErrors():
            error = "; ".join(layer.dataProvider().errors())
    layers.append(
        {
            "name": layer.name(),
            "provider": layer.providerType(),
            "valid": layer.isValid(),
            "crs": layer.crs().authid(),
            "fields": layer.fields().names() if layer.isValid() else [],
            "subset": layer.subsetString(),
            "labelsEnabled": layer.labelsEnabled(),
            "labelField": settings.fieldName if settings is not None else None,
            "renderer": layer.renderer().type() if layer.renderer() else None,
            "features": len(refs),
            "cadastralRefs": refs,
            "sirutas": sorted(sirutas),
            "error": error,
        }
    )

print("RESULT " + json.dumps({"projectCrs": project.crs().authid(), "title": project.title(), "layers": layers}, ensure_ascii=False))
sys.stdout.flush()
# QgsApplication.exitQgis() may crash at exit on some builds; the answer is already written.
os._exit(0)
