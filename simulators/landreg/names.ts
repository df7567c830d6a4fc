/**
 * Romanian names for owners, streets and documents. Written with comma-below diacritics;
 * `cedillaSpelling` turns them into the old ş/ţ forms the real portal also holds.
 */

export const FIRST_NAMES_M = [
  'Ion', 'Gheorghe', 'Vasile', 'Constantin', 'Ștefan', 'Mihai', 'Nicolae', 'Dumitru', 'Alexandru',
  'Andrei', 'Florin', 'Ionuț', 'Cătălin', 'Răzvan', 'Bogdan', 'Costică', 'Petru', 'Radu', 'Marius',
  'Adrian', 'Sorin', 'Viorel', 'Aurel', 'Cornel', 'Tudor', 'Traian', 'Grigore', 'Ovidiu', 'Dănuț',
  'Lucian', 'Horațiu', 'Laurențiu', 'Mircea', 'Emil', 'Iosif', 'Béla', 'Attila', 'Zoltán', 'Levente',
];

export const FIRST_NAMES_F = [
  'Maria', 'Elena', 'Ioana', 'Ana', 'Mihaela', 'Gabriela', 'Florentina', 'Cristina', 'Alexandra',
  'Andreea', 'Ștefania', 'Georgeta', 'Viorica', 'Aurelia', 'Lăcrămioara', 'Mioara', 'Rodica',
  'Valentina', 'Cornelia', 'Tatiana', 'Smaranda', 'Despina', 'Ileana', 'Doina', 'Luminița', 'Dorina',
  'Violeta', 'Natalița', 'Anișoara', 'Irina', 'Erzsébet', 'Katalin', 'Ildikó',
];

export const SURNAMES = [
  'Popescu', 'Ionescu', 'Popa', 'Pop', 'Radu', 'Dumitru', 'Stan', 'Stoica', 'Gheorghe', 'Matei',
  'Ciobanu', 'Rusu', 'Mureșan', 'Munteanu', 'Constantinescu', 'Ștefănescu', 'Țurcanu', 'Oprea',
  'Lungu', 'Marinescu', 'Tănase', 'Niță', 'Toma', 'Dobre', 'Bălan', 'Ursu', 'Florea', 'Vlad',
  'Ene', 'Țîrlea', 'Roșu', 'Mocanu', 'Pătrașcu', 'Cozma', 'Iordache', 'Buzatu', 'Zăvoianu',
  'Moldovan', 'Avram', 'Bucur', 'Ilie', 'Sârbu', 'Manea', 'Coman', 'Drăgan', 'Băcanu', 'Țepeș',
  'Șerban', 'Sandu', 'Preda', 'Crăciun', 'Grigoraș', 'Cârstea', 'Bratu', 'Neagu', 'Țăranu',
  'Kovács', 'Szabó', 'Nagy', 'Fazakas', 'Bíró', 'Kelemen', 'Lazăr', 'Mihăilă', 'Ardeleanu',
];

export const COMPANIES = [
  'Agro Prod Câmpia SRL', 'Construcții Moderne SA', 'Comuna {uat} (domeniul public)',
  'Statul Român', 'Parohia Ortodoxă {uat}', 'Ferma Ștefănești SRL', 'Imobiliara Țara Bârsei SRL',
  'Oraș {uat} (domeniul privat)', 'Cooperativa Agricolă Înfrățirea',
];

export const STREET_TYPES: ReadonlyArray<readonly [{ code: string; name: string }, number]> = [
  [{ code: 'STR', name: 'Strada' }, 70],
  [{ code: 'ALE', name: 'Aleea' }, 8],
  [{ code: 'BD', name: 'Bulevardul' }, 4],
  [{ code: 'CAL', name: 'Calea' }, 3],
  [{ code: 'DRM', name: 'Drumul' }, 6],
  [{ code: 'INT', name: 'Intrarea' }, 6],
  [{ code: 'SOS', name: 'Șoseaua' }, 3],
];

export const STREET_NAMES = [
  'Mihai Eminescu', 'Ștefan cel Mare', 'Mihai Viteazul', 'Avram Iancu', 'Nicolae Bălcescu',
  'Tudor Vladimirescu', 'Unirii', 'Libertății', 'Republicii', 'Independenței', 'Gării',
  'Școlii', 'Bisericii', 'Morii', 'Viilor', 'Florilor', 'Teilor', 'Castanilor', 'Plopilor',
  'Ion Creangă', 'George Coșbuc', 'Lucian Blaga', 'Octavian Goga', 'Alexandru Ioan Cuza',
  'Păcii', 'Zorilor', 'Primăverii', 'Câmpului', 'Izvorului', 'Pădurii', 'Țăranilor',
  'Mărășești', 'Mărăști', 'Decebal', 'Traian', 'Horea', 'Cloșca', 'Crișan', 'Andrei Mureșanu',
  'Grigore Alexandrescu', 'Vasile Alecsandri', 'Constantin Brâncoveanu', 'Petőfi Sándor',
  'Gheorghe Doja', 'Kós Károly', '1 Decembrie 1918', '9 Mai', 'Dealului', 'Livezii', 'Fântânii',
];

export const INSCRIPTION_TITLES = [
  'Contract de vânzare-cumpărare autentificat nr. {n}/{y} de BNP {notar}',
  'Certificat de moștenitor nr. {n}/{y} emis de BNP {notar}',
  'Titlu de proprietate nr. {n}/{y} emis de Comisia Județeană {county}',
  'Contract de donație autentificat nr. {n}/{y} de BNP {notar}',
  'Sentința civilă nr. {n}/{y} a Judecătoriei {county}',
  'Act de dezmembrare autentificat nr. {n}/{y} de BNP {notar}',
  'Autorizație de construire nr. {n}/{y} emisă de Primăria {uat}',
];

export const DOC_TYPES = [
  'Primă înregistrare', 'Dezmembrare', 'Alipire', 'Actualizare informații tehnice',
  'Intabulare construcție', 'Rectificare suprafață', 'Înscriere în cartea funciară',
];

const CEDILLA: Record<string, string> = { 'ș': 'ş', 'Ș': 'Ş', 'ț': 'ţ', 'Ț': 'Ţ' };

/** The legacy cedilla spelling (ş, ţ) of a name written with comma-below letters. */
export function cedillaSpelling(s: string): string {
  return s.replace(/[șȘțȚ]/g, (c) => CEDILLA[c]);
}

/** Folds diacritics of both spellings and case, for search that matches either. */
export function foldRo(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[șşȘŞ]/g, 's')
    .replace(/[țţȚŢ]/g, 't')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim();
}
