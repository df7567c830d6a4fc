/**
 * A drop zone for the document tools: drag a file onto it or click to choose one. Keyboard users
 * get the native file input (focusable, Enter/Space open the picker).
 */
import { useId, useState, type DragEvent } from 'react';

export function FileDrop(props: { accept: string; label: string; hint?: string; file: File | null; onFile: (f: File) => void; disabled?: boolean; testId?: string }) {
  const id = useId();
  const [over, setOver] = useState(false);
  const onDrop = (e: DragEvent<HTMLLabelElement>) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer.files?.[0];
    if (f && !props.disabled) props.onFile(f);
  };
  return (
    <label
      htmlFor={id}
      className={`file-drop${over ? ' file-drop--over' : ''}${props.file ? ' file-drop--chosen' : ''}`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={onDrop}
      data-testid={props.testId}
    >
      <input
        id={id}
        type="file"
        accept={props.accept}
        className="file-drop__input"
        disabled={props.disabled}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) props.onFile(f);
          e.target.value = '';
        }}
      />
      <span className="file-drop__label">{props.file ? props.file.name : props.label}</span>
      {props.hint ? <span className="file-drop__hint">{props.hint}</span> : null}
    </label>
  );
}
