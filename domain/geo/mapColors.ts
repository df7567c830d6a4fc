/**
 * The map's colours, one table for the web map's style (web/app/lib/geoportal/style.ts) and the
 * QGIS project the service writes (domain/ogc/qgisProject.ts), so a parcel is the same green in
 * the browser and on the desktop.
 */
export const MAP_COLORS = {
  background: '#f3f2ee',
  uat: '#4b5563',
  parcelPlain: '#d97706', // amber: not enriched
  parcelEnriched: '#16a34a', // green: enriched
  parcelOverview: '#64748b', // grey: the overview's mesh, whose enrichment state is not known
  buildingIllegal: '#dc2626',
  buildingLegal: '#2563eb',
  buildingUnknown: '#6b7280',
  intravilan: '#7c3aed',
  selection: '#0284c7',
  highlight: '#111827',
} as const;
