/**
 * The land-registry portal's 42 workspaces (spec 2.1: workspacePk = the county id of both
 * portals): the 41 counties and București. Fixed by the portals, so the RGI page offers them
 * without waiting for the UAT catalogue; `rgi.test.ts` checks the list against the reference
 * nomenclature the simulators serve.
 */
export interface County {
  workspacePk: number;
  name: string;
}

export const COUNTIES: readonly County[] = [
  { workspacePk: 10, name: 'Alba' },
  { workspacePk: 29, name: 'Arad' },
  { workspacePk: 38, name: 'Argeș' },
  { workspacePk: 47, name: 'Bacău' },
  { workspacePk: 56, name: 'Bihor' },
  { workspacePk: 65, name: 'Bistrița-Năsăud' },
  { workspacePk: 74, name: 'Botoșani' },
  { workspacePk: 83, name: 'Brașov' },
  { workspacePk: 92, name: 'Brăila' },
  { workspacePk: 403, name: 'București' },
  { workspacePk: 109, name: 'Buzău' },
  { workspacePk: 118, name: 'Caraș-Severin' },
  { workspacePk: 519, name: 'Călărași' },
  { workspacePk: 127, name: 'Cluj' },
  { workspacePk: 136, name: 'Constanța' },
  { workspacePk: 145, name: 'Covasna' },
  { workspacePk: 154, name: 'Dâmbovița' },
  { workspacePk: 163, name: 'Dolj' },
  { workspacePk: 172, name: 'Galați' },
  { workspacePk: 528, name: 'Giurgiu' },
  { workspacePk: 181, name: 'Gorj' },
  { workspacePk: 190, name: 'Harghita' },
  { workspacePk: 207, name: 'Hunedoara' },
  { workspacePk: 216, name: 'Ialomița' },
  { workspacePk: 225, name: 'Iași' },
  { workspacePk: 234, name: 'Ilfov' },
  { workspacePk: 243, name: 'Maramureș' },
  { workspacePk: 252, name: 'Mehedinți' },
  { workspacePk: 261, name: 'Mureș' },
  { workspacePk: 270, name: 'Neamț' },
  { workspacePk: 289, name: 'Olt' },
  { workspacePk: 298, name: 'Prahova' },
  { workspacePk: 305, name: 'Satu Mare' },
  { workspacePk: 314, name: 'Sălaj' },
  { workspacePk: 323, name: 'Sibiu' },
  { workspacePk: 332, name: 'Suceava' },
  { workspacePk: 341, name: 'Teleorman' },
  { workspacePk: 350, name: 'Timiș' },
  { workspacePk: 369, name: 'Tulcea' },
  { workspacePk: 378, name: 'Vaslui' },
  { workspacePk: 387, name: 'Vâlcea' },
  { workspacePk: 396, name: 'Vrancea' },
];
