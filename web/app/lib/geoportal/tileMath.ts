/** Web Mercator tile numbers of a WGS84 position (XYZ scheme, as /tiles and MapLibre use). */
export const lon2x = (lon: number, z: number) => Math.floor(((lon + 180) / 360) * 2 ** z);
export const lat2y = (lat: number, z: number) => {
  const r = (lat * Math.PI) / 180;
  return Math.floor(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * 2 ** z);
};
