/** The Romanian error page body: used by the root error boundary and the 404 route. */
export function ErrorPanel({ status, title, message }: { status?: number; title: string; message: string }) {
  return (
    <section className="error-panel" role="alert" data-testid="error-panel">
      {status ? <p className="error-panel__code">Eroare {status}</p> : null}
      <h1 className="error-panel__title">{title}</h1>
      <p className="error-panel__text">{message}</p>
      <a className="btn btn--primary" href="/">
        Înapoi la pagina principală
      </a>
    </section>
  );
}
