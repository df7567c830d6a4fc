/**
 * The land-registry portal answers the enrichment reads (shapes of the portal's immovable
 * services, as the simulator in simulators/landreg/immovables.ts serves them), and the small
 * interface the enrichment code needs from a portal client. The shared portal client of the sync
 * engine (domain/landreg/) is adapted to this interface in ./portal.ts; nothing else here talks
 * HTTP, so the rules stay pure and testable.
 */

export interface PortalOwnershipNode {
  nodeId: number;
  parentNodeId: number | null;
  nodeType: 'IMMOVABLE' | 'INSCRIPTION' | 'PERSON' | string;
  /** -1 radiated, 0 active, 2 pending (spec 2.4 rule 1). */
  nodeStatus: number;
  label?: string | null;
  inscription?: { type?: string | null; registrationNo?: string | null; registrationDate?: string | null; title?: string | null; share?: string | null } | null;
  person?: {
    personType?: string | null;
    name?: string | null;
    firstName?: string | null;
    lastName?: string | null;
    share?: string | null;
    shareNumerator?: number | null;
    shareDenominator?: number | null;
  } | null;
}

export interface PortalNamed {
  code?: string | null;
  name?: string | null;
}

export interface PortalAddress {
  street?: { name?: string | null; streetType?: PortalNamed | null } | null;
  postalNumber?: string | null;
  entrance?: string | null;
  floor?: string | null;
  unit?: string | null;
  section?: string | null;
  postalCode?: string | null;
  locality?: { siruta?: number | null; name?: string | null } | null;
  uat?: { siruta?: number | null; name?: string | null } | null;
  county?: { workspaceId?: number | null; name?: string | null; code?: string | null } | null;
  freeText?: string | null;
}

export interface PortalUseCategory {
  useCategory?: PortalNamed | null;
  area?: number | null;
  intravilan?: boolean | null;
}

export interface PortalDocumentation {
  documentType?: string | null;
  applicationNo?: string | null;
  receptionDate?: string | null;
  cadastralEngineer?: string | null;
  measuredArea?: number | null;
}

/** GET /immovable/details?immovablePk= (also each hit of /immovable/search). */
export interface PortalImmovableDetails {
  immovablePk: number;
  workspaceId?: number | null;
  adminUnitId?: number | null;
  uatName?: string | null;
  cadastralNumber?: string | null;
  landbookNo?: string | null;
  oldLandbookNo?: string | null;
  topoNumbers?: string[] | null;
  immovableType?: string | null;
  intravilan?: boolean | null;
  measuredArea?: number | null;
  legalArea?: number | null;
  useCategories?: PortalUseCategory[] | null;
  addresses?: PortalAddress[] | null;
  buildings?: Array<{ cadastralNumber?: string | null }> | null;
  documentation?: PortalDocumentation[] | null;
  applicant?: { personType?: string | null; name?: string | null } | null;
  hasGeometry?: boolean | null;
  /** Epoch milliseconds. */
  validFrom?: number | null;
}

/** One entry of GET /immovable/list (paged). */
export interface PortalImmovableListEntry {
  immovablePk: number;
  cadastralNumber: string | null;
  landbookNo?: string | null;
  topoNo?: string | null;
  measuredArea?: number | null;
  legalArea?: number | null;
  intravilan?: boolean | null;
  immovableType?: string | null;
  status?: string | null;
}

export interface PortalOwnerHit {
  immovablePk: number;
  adminUnitId: number;
  cadastralNumber: string | null;
  landbookNo?: string | null;
  ownerName: string;
  share?: string | null;
  nodeStatus: number;
}

export interface PortalSearchAnswer<T> {
  content: T[];
  totalElements: number;
  truncated?: boolean;
}

/** Attributes of a parcel or building as the layer query returns them (remote names, spec 2.1). */
export type LayerAttributes = Record<string, string | number | null>;

/** What enrichment, search and the no-geometry import need from the portal. */
export interface EnrichmentPortal {
  immovableDetails(immovablePk: number): Promise<PortalImmovableDetails | null>;
  ownershipTree(immovablePk: number): Promise<PortalOwnershipNode[]>;
  /** At most 50 hits an answer (the portal's cap); callers chunk their numbers. */
  searchByCadastral(workspaceId: number, siruta: number, numbers: string[]): Promise<PortalSearchAnswer<PortalImmovableDetails>>;
  searchByOwner(workspaceId: number, siruta: number, name: string): Promise<PortalSearchAnswer<PortalOwnerHit>>;
  /** One page of the immovable list of a UAT. */
  immovablePage(workspaceId: number, siruta: number, page: number, size: number): Promise<{ content: PortalImmovableListEntry[]; totalElements: number; last: boolean }>;
  /** Feature count of a remote layer restricted to one UAT. */
  layerCount(layerId: string, siruta: number): Promise<number>;
  /** Attributes (no geometry) of a remote layer restricted to one UAT, one page. */
  layerAttributesPage(layerId: string, siruta: number, outFields: string[], offset: number, size: number): Promise<{ rows: LayerAttributes[]; more: boolean }>;
  /** Nomenclature: the county (workspace) of a UAT, or null when unknown. */
  workspaceOfUat(siruta: number): Promise<number | null>;
  workspaces(): Promise<number[]>;
  uatsOfWorkspace(workspaceId: number): Promise<number[]>;
}
