/**
 * EPSG:3844 (Stereo 70), the projection the land-registry portal and the central API speak, with
 * the 7-parameter Helmert shift ANCPI publishes (without it positions drift by ~100 m). The
 * simulators' own copy of the published definition, as any outside system carries its own.
 */
import proj4 from 'proj4';

const STEREO_70 =
  '+proj=sterea +lat_0=46 +lon_0=25 +k=0.99975 +x_0=500000 +y_0=500000 +ellps=krass +towgs84=2.329,-147.042,-92.08,-0.309,0.325,0.497,5.69 +units=m +no_defs';

const converter = proj4('EPSG:4326', STEREO_70);

/** WGS84 [lon, lat] → Stereo 70 [x, y] in metres. */
export function toStereo70(lonLat: readonly number[]): [number, number] {
  const [x, y] = converter.forward([lonLat[0], lonLat[1]]);
  return [x, y];
}

/** Stereo 70 [x, y] → WGS84 [lon, lat]. */
export function fromStereo70(xy: readonly number[]): [number, number] {
  const [lon, lat] = converter.inverse([xy[0], xy[1]]);
  return [lon, lat];
}
