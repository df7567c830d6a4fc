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

/**
 * Said wherever one of the two areas shows: a person comparing the map's panel with the sync
 * search (or the land book's extract) sees two numbers and must know which is which.
 */
export const AREA_NOTE =
  'Suprafața din stratul cadastral este cea a conturului parcelei desenat pe hartă; suprafața din cartea funciară este cea înscrisă pentru imobil (măsurată, altfel cea din acte). Cele două pot diferi cu câteva procente.';
