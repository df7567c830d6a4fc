/**
 * The ready QGIS project of issue 42 (docs/qgis.md, "A ready project"): a .qgs written from the
 * templates in domain/ogc/qgis/, with the parcels, buildings, intravilan and UAT boundaries of
 * /ogc as OGC API Features layers in EPSG:3844, drawn in the map's colours (domain/geo/mapColors.ts)
 * and labelled with the cadastral number, limited to one UAT by naming that UAT's collection
 * (`parcels-54975`, domain/ogc/collections.ts scopedCollectionById).
 *
 * The layers name an authentication configuration (QGIS_AUTHCFG) the user creates in QGIS with a
 * personal token: the file never holds a secret, so it can be mailed or kept on a shared drive.
 * What the styles read follows the viewer rule (propertyClass): a viewer whose features carry no
 * enrichment gets no rule on an enrichment key, and no personal key is ever named.
 */
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config';
import { MAP_COLORS } from '../geo/mapColors';
import type { Viewer } from '../auth/rules';
import { collectionById, propertyClass, type OgcCollection } from './collections';
import { QGIS_AUTHCFG } from './rules';

/**
 * Cadastral numbers show from 1:6,000 inwards: the web map's zoom 16 (LABEL_MINZOOM of
 * web/app/lib/geoportal/style.ts) at Romania's latitude.
 */
export const QGIS_LABEL_MAX_SCALE = 6000;
/** Features a page: large pages, as the service reads a whole UAT fastest that way (docs/qgis.md). */
const PAGE_SIZE = 5000;

const TEMPLATE_DIR = path.join(projectRoot, 'domain/ogc/qgis');
const templates = new Map<string, string>();
function template(name: string): string {
  let t = templates.get(name);
  if (t === undefined) {
    t = fs.readFileSync(path.join(TEMPLATE_DIR, name), 'utf8');
    templates.set(name, t);
  }
  return t;
}

/** A template with its {{KEYS}} replaced; every value is XML-escaped unless passed as `raw`. */
function fill(name: string, values: Record<string, string | number>, raw: Record<string, string> = {}): string {
  return template(name).replace(/\{\{([A-Z_]+)\}\}/g, (_m, key: string) => {
    if (key in raw) return raw[key];
    if (key in values) return xml(String(values[key]));
    throw new Error(`QGIS template ${name}: no value for {{${key}}}`);
  });
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** '#16a34a' and an alpha 0..255 as QGIS writes a colour: "22,163,74,40". */
function rgba(hex: string, alpha = 255): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `${(n >> 16) & 255},${(n >> 8) & 255},${n & 255},${alpha}`;
}

interface Fill {
  color: string;
  /** Fill opacity 0..255 (the map's fill-opacity 0.16 is 40). */
  alpha: number;
  width: number;
}
const fillSymbol = (f: Fill) => fill('simple-fill.xml', { FILL: rgba(f.color, f.alpha), LINE: rgba(f.color), WIDTH: f.width });
/**
 * Outline-only symbol layers of a fill symbol (the limits are polygons drawn as lines on the map);
 * two with offsets ± draw the map's double intravilan line (line-gap-width).
 */
const outlineLayers = (color: string, width: number, offsets = [0]) =>
  offsets.map((o) => fill('simple-line.xml', { LINE: rgba(color, 217), WIDTH: width, OFFSET: o })).join('\n');

const symbol = (name: string, layers: string) =>
  `          <symbol type="fill" name="${name}" alpha="1" clip_to_extent="1" force_rhr="0">\n${layers}\n          </symbol>`;

const singleRenderer = (layers: string) =>
  `      <renderer-v2 type="singleSymbol" symbollevels="0" forceraster="0" enableorderby="0">\n        <symbols>\n${symbol('0', layers)}\n        </symbols>\n        <rotation/>\n        <sizescale/>\n      </renderer-v2>`;

/** A rule-based renderer: each rule an expression (or ELSE), its legend label and its fill. */
function ruleRenderer(rules: { filter: string; label: string; fill: Fill }[]): string {
  const ruleXml = rules.map((r, i) => `          <rule key="{rule-${i}}" filter="${xml(r.filter)}" label="${xml(r.label)}" symbol="${i}"/>`).join('\n');
  const symbols = rules.map((r, i) => symbol(String(i), fillSymbol(r.fill))).join('\n');
  return `      <renderer-v2 type="RuleRenderer" symbollevels="0" forceraster="0" enableorderby="0">\n        <rules key="{root}">\n${ruleXml}\n        </rules>\n        <symbols>\n${symbols}\n        </symbols>\n      </renderer-v2>`;
}

const PARCEL_LINE = 0.3;

/**
 * Parcels as on the map: green with enrichment, amber without. The enrichment stamp tells them
 * apart (ENRICHED_AT, written with every enrichment, not personal); a viewer whose parcels carry
 * no enrichment (the basic panel) cannot tell, so the parcels are the map's "state not known" grey.
 */
function parcelRenderer(collection: OgcCollection, viewer: Viewer): string {
  if (propertyClass(collection, viewer) === 'common') return singleRenderer(fillSymbol({ color: MAP_COLORS.parcelOverview, alpha: 40, width: PARCEL_LINE }));
  return ruleRenderer([
    { filter: '"ENRICHED_AT" IS NOT NULL', label: 'Parcelă cu date îmbogățite', fill: { color: MAP_COLORS.parcelEnriched, alpha: 40, width: PARCEL_LINE } },
    { filter: 'ELSE', label: 'Parcelă fără date îmbogățite', fill: { color: MAP_COLORS.parcelPlain, alpha: 40, width: PARCEL_LINE } },
  ]);
}

interface LayerSpec {
  collectionId: string;
  renderer: (collection: OgcCollection, viewer: Viewer) => string;
  /** Labelled with the cadastral number (the parcels, as on the map). */
  labelled: boolean;
}

/** Drawn bottom to top: boundaries above the parcels, as on the map. */
const LAYERS: LayerSpec[] = [
  { collectionId: 'parcels', renderer: parcelRenderer, labelled: true },
  {
    collectionId: 'buildings',
    // The map colours a building by its parcel's legal state, which /ogc's buildings do not
    // carry: the map's "situation not known" grey.
    renderer: () => singleRenderer(fillSymbol({ color: MAP_COLORS.buildingUnknown, alpha: 140, width: 0.26 })),
    labelled: false,
  },
  {
    collectionId: 'intravilan',
    renderer: () => singleRenderer(outlineLayers(MAP_COLORS.intravilan, 0.35, [-0.5, 0.5])),
    labelled: false,
  },
  {
    collectionId: 'uat-boundaries',
    renderer: () => singleRenderer(outlineLayers(MAP_COLORS.uat, 0.6)),
    labelled: false,
  },
];

export interface QgisProjectInput {
  /** The service's public address (config.app.publicUrl): the layers' /ogc URL. */
  publicUrl: string;
  viewer: Viewer;
  /** One UAT (its layers read the UAT's collections) or null: every UAT of the store. */
  uat: { siruta: number; name: string } | null;
  /** What the project opens on, in EPSG:3844 (x easting, y northing). */
  extent: { xmin: number; ymin: number; xmax: number; ymax: number };
}

/**
 * The OAPIF provider's data source: the collection (one UAT's, `parcels-54975`, when the project
 * is a UAT's: QGIS 3.22 applies a provider filter on its side after reading every page, the UAT's
 * collection is limited by the server), EPSG:3844, the auth configuration.
 */
function dataSource(publicUrl: string, collectionId: string, siruta: number | null): string {
  const parts = [
    `authcfg='${QGIS_AUTHCFG}'`,
    `pageSize='${PAGE_SIZE}'`,
    `pagingEnabled='true'`,
    `preferCoordinatesForWfsT11='false'`,
    `restrictToRequestBBOX='1'`,
    `srsname='EPSG:3844'`,
    `typename='${siruta === null ? collectionId : `${collectionId}-${siruta}`}'`,
    `url='${publicUrl.replace(/\/+$/, '')}/ogc'`,
    `version='OGC_API_FEATURES'`,
  ];
  return parts.join(' ');
}

/** The project's .qgs text. */
export function qgisProjectXml(input: QgisProjectInput): string {
  const { viewer, uat } = input;
  const title = uat ? `Geoportal cadastral · ${uat.name} (${uat.siruta})` : 'Geoportal cadastral';
  const layers = LAYERS.map((spec) => {
    const collection = collectionById(spec.collectionId)!;
    const id = `geoportal_${collection.id.replace(/-/g, '_')}${uat ? `_${uat.siruta}` : ''}`;
    return { spec, collection, id, source: dataSource(input.publicUrl, collection.id, uat?.siruta ?? null) };
  });
  // The layer tree lists the topmost layer first.
  const tree = [...layers]
    .reverse()
    .map((l) => `    <layer-tree-layer id="${xml(l.id)}" name="${xml(l.collection.title)}" providerKey="OAPIF" source="${xml(l.source)}" checked="Qt::Checked" expanded="1"/>`)
    .join('\n');
  const projectLayers = layers
    .map((l) =>
      fill(
        'layer.xml',
        { ID: l.id, NAME: l.collection.title, DATASOURCE: l.source, LABELS_ENABLED: l.spec.labelled ? 1 : 0 },
        {
          CRS: template('crs.xml'),
          RENDERER: l.spec.renderer(l.collection, viewer),
          LABELING: l.spec.labelled ? fill('labeling.xml', { FIELD: 'cadastral_ref', COLOR: rgba(MAP_COLORS.highlight), MAX_SCALE: QGIS_LABEL_MAX_SCALE }) : '',
        },
      ),
    )
    .join('\n');
  const order = [...layers]
    .reverse()
    .map((l) => `    <layer id="${xml(l.id)}"/>`)
    .join('\n');
  const { xmin, ymin, xmax, ymax } = input.extent;
  return fill(
    'project.qgs',
    { TITLE: title, AUTHCFG: QGIS_AUTHCFG, XMIN: xmin, YMIN: ymin, XMAX: xmax, YMAX: ymax },
    { CRS: template('crs.xml'), LAYER_TREE: tree, LAYERS: projectLayers, LAYER_ORDER: order },
  );
}
