/**
 * The drop zone of the document tools (/instrumente/*): drag a file onto it or click to choose
 * one; keyboard users get the native file input (focusable by its id). Styles in tools.css.
 */
import { useState, type DragEvent } from 'react';
import { formatBytes } from '../../lib/tilesFormat';

export function FileDrop(props: {
  /** Id of the file input (a label or a test can target it) and prefix of `data-testid` `<id>-drop`. */
  id: string;
  accept: string;
  /** "fișierul PDF", "desenul DWG": completes "Trageți aici …". */
  what: string;
  /** Small print under the prompt, e.g. the size limit. */
  note?: string;
  file: File | null;
  onFile: (f: File | null) => void;
  disabled?: boolean;
}) {
  const [over, setOver] = useState(false);
  const onDrop = (e: DragEvent<HTMLLabelElement>) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files?.[0];
    if (f && !props.disabled) props.onFile(f);
  };
  return (
    <label
      htmlFor={props.id}
      className={`file-drop${over ? ' file-drop--over' : ''}${props.file ? ' file-drop--has-file' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      data-testid={`${props.id}-drop`}
    >
      <input
        id={props.id}
        type="file"
        accept={props.accept}
        className="file-drop__input"
        disabled={props.disabled}
        onChange={(e) => props.onFile(e.target.files?.[0] ?? null)}
      />
      {props.file ? (
        <span className="file-drop__file">
          <strong>{props.file.name}</strong> · {formatBytes(props.file.size)}
        </span>
      ) : (
        <span className="file-drop__hint">
          Trageți aici {props.what} sau <span className="file-drop__pick">alegeți-l de pe calculator</span>
          {props.note ? <small>{props.note}</small> : null}
        </span>
      )}
    </label>
  );
}
