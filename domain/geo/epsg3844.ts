/**
 * EPSG:3844 (Stereo 70), the projection the land-registry portal speaks. The towgs84 parameters
 * are the 7-parameter Helmert shift ANCPI publishes; without them positions drift by ~100 m, so
 * all product code uses this one definition (the simulators, as outside systems, carry the same
 * published parameters in simulators/shared/stereo70.ts).
 *
 * The rotation signs are those of the position-vector convention that proj4 strings use; with
 * them this string gives, to the millimetre, what PROJ's EPSG pipeline ("Pulkovo 1942(58) to
 * WGS 84 (19)") gives, which is what PostGIS ST_Transform and GDAL's `EPSG:3844` use. (The
 * proj4text column of PostGIS' spatial_ref_sys carries the coordinate-frame signs; PostGIS does
 * not use it when PROJ knows the EPSG code.) So `EPSG:3844` may be passed to GDAL and PostGIS as is.
 */
import proj4 from 'proj4';

export const EPSG_3844 = 'EPSG:3844';
export const EPSG_3844_PROJ4 =
  '+proj=sterea +lat_0=46 +lon_0=25 +k=0.99975 +x_0=500000 +y_0=500000 +ellps=krass +towgs84=2.329,-147.042,-92.08,-0.309,0.325,0.497,5.69 +units=m +no_defs';

proj4.defs(EPSG_3844, EPSG_3844_PROJ4);

const converter = proj4('EPSG:4326', EPSG_3844);

/** WGS84 [lon, lat] → Stereo 70 [x, y] in metres. */
export function wgs84ToStereo70(lonLat: readonly [number, number] | number[]): [number, number] {
  const [x, y] = converter.forward([lonLat[0], lonLat[1]]);
  return [x, y];
}

/** Stereo 70 [x, y] → WGS84 [lon, lat]. */
export function stereo70ToWgs84(xy: readonly [number, number] | number[]): [number, number] {
  const [lon, lat] = converter.inverse([xy[0], xy[1]]);
  return [lon, lat];
}
