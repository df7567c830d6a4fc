/**
 * Box selection (issue 7): Shift + drag draws a rectangle and selects every parcel under it.
 * A Shift + click (no drag) is left to the map's click handler, which toggles one parcel.
 * MapLibre's own Shift-drag box zoom is off for this reason (see GeoportalMap).
 */
import type { Map as MlMap, MapGeoJSONFeature, PointLike } from 'maplibre-gl';

/** Below this many pixels of movement a Shift-press is a click, not a box. */
const DRAG_THRESHOLD_PX = 4;

/** The box in canvas pixels: top-left and bottom-right corners. */
export type ScreenBox = [[number, number], [number, number]];

export function enableBoxSelect(
  map: MlMap,
  layers: () => string[],
  onBox: (features: MapGeoJSONFeature[], box: ScreenBox) => void,
): () => void {
  const canvas = map.getCanvasContainer();
  let start: { x: number; y: number } | null = null;
  let box: HTMLDivElement | null = null;

  const pos = (e: MouseEvent) => {
    const r = canvas.getBoundingClientRect();
    return { x: e.clientX - r.left - canvas.clientLeft, y: e.clientY - r.top - canvas.clientTop };
  };

  const onMove = (e: MouseEvent) => {
    if (!start) return;
    const p = pos(e);
    if (!box) {
      if (Math.hypot(p.x - start.x, p.y - start.y) < DRAG_THRESHOLD_PX) return;
      box = document.createElement('div');
      box.className = 'gp-boxselect';
      box.setAttribute('data-testid', 'box-select');
      canvas.appendChild(box);
    }
    const [x0, x1] = [Math.min(start.x, p.x), Math.max(start.x, p.x)];
    const [y0, y1] = [Math.min(start.y, p.y), Math.max(start.y, p.y)];
    box.style.transform = `translate(${x0}px, ${y0}px)`;
    box.style.width = `${x1 - x0}px`;
    box.style.height = `${y1 - y0}px`;
  };

  const finish = (e: MouseEvent) => {
    document.removeEventListener('mousemove', onMove);
    document.removeEventListener('mouseup', finish);
    const from = start;
    start = null;
    map.dragPan.enable();
    if (!box || !from) return;
    box.remove();
    box = null;
    const to = pos(e);
    const bbox: ScreenBox = [
      [Math.min(from.x, to.x), Math.min(from.y, to.y)],
      [Math.max(from.x, to.x), Math.max(from.y, to.y)],
    ];
    onBox(map.queryRenderedFeatures(bbox as [PointLike, PointLike], { layers: layers() }), bbox);
  };

  const onDown = (e: MouseEvent) => {
    if (!e.shiftKey || e.button !== 0) return;
    map.dragPan.disable();
    start = pos(e);
    document.addEventListener('mousemove', onMove);
    document.addEventListener('mouseup', finish);
  };

  canvas.addEventListener('mousedown', onDown, true);
  return () => canvas.removeEventListener('mousedown', onDown, true);
}
