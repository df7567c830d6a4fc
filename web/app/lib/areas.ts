/**
 * The areas a parcel has, never under one bare "Suprafață": the cadastral layer's AREA_VALUE
 * (a feature's `areaValue`, what the map's layer holds) and the land book's SUPRAFATA (the
 * immovable's measured area, else the one in its deeds, else the sum of its use categories),
 * which differ by a few percent. One set of labels for the map panel and the parcel-sync pages.
 */
export const AREA_LABELS = {
  layer: 'Suprafață din stratul cadastral',
  landBook: 'Suprafață din cartea funciară',
  measured: 'Suprafață măsurată',
  deeds: 'Suprafață din acte',
} as const;
