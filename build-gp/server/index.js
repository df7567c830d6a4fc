import { jsx, jsxs, Fragment } from "react/jsx-runtime";
import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable, redirectDocument, data } from "@remix-run/node";
import { RemixServer, Outlet, useRouteError, isRouteErrorResponse, useRouteLoaderData, Meta, Links, ScrollRestoration, Scripts, NavLink, useLoaderData, useActionData, useNavigation, Link, Form, useRevalidator } from "@remix-run/react";
import * as isbotModule from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { getPool } from "../../domain/db/pool.ts";
import { AppError, errors } from "../../domain/errors.ts";
import { enrichmentPortal } from "../../domain/enrichment/portal.ts";
import { getLandregClient } from "../../domain/landreg/client.ts";
import { enrichOne, viewEnrichment, searchCadastral, searchOwner, canSearchOwners } from "../../domain/enrichment/service.ts";
import { personalDataHidden } from "../../domain/enrichment/rules.ts";
import { findParcel } from "../../domain/enrichment/store.ts";
import { uatDashboard } from "../../domain/enrichment/dashboard.ts";
import { useEffect, useState, useRef, useCallback, useId } from "react";
import { startTileRebuild, tileInfraStatus } from "../../api/routes/geoportalTiles.ts";
import TinySDF from "@mapbox/tiny-sdf";
import { PbfWriter } from "pbf";
import { infrastructureHealth } from "../../api/routes/system.ts";
const ABORT_DELAY = 5e3;
function handleRequest(request, responseStatusCode, responseHeaders, remixContext, loadContext) {
  let prohibitOutOfOrderStreaming = isBotRequest(request.headers.get("user-agent")) || remixContext.isSpaMode;
  return prohibitOutOfOrderStreaming ? handleBotRequest(
    request,
    responseStatusCode,
    responseHeaders,
    remixContext
  ) : handleBrowserRequest(
    request,
    responseStatusCode,
    responseHeaders,
    remixContext
  );
}
function isBotRequest(userAgent) {
  if (!userAgent) {
    return false;
  }
  if ("isbot" in isbotModule && typeof isbotModule.isbot === "function") {
    return isbotModule.isbot(userAgent);
  }
  if ("default" in isbotModule && typeof isbotModule.default === "function") {
    return isbotModule.default(userAgent);
  }
  return false;
}
function handleBotRequest(request, responseStatusCode, responseHeaders, remixContext) {
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      /* @__PURE__ */ jsx(
        RemixServer,
        {
          context: remixContext,
          url: request.url,
          abortDelay: ABORT_DELAY
        }
      ),
      {
        onAllReady() {
          shellRendered = true;
          const body = new PassThrough();
          const stream = createReadableStreamFromReadable(body);
          responseHeaders.set("Content-Type", "text/html");
          resolve(
            new Response(stream, {
              headers: responseHeaders,
              status: responseStatusCode
            })
          );
          pipe(body);
        },
        onShellError(error) {
          reject(error);
        },
        onError(error) {
          responseStatusCode = 500;
          if (shellRendered) {
            console.error(error);
          }
        }
      }
    );
    setTimeout(abort, ABORT_DELAY);
  });
}
function handleBrowserRequest(request, responseStatusCode, responseHeaders, remixContext) {
  return new Promise((resolve, reject) => {
    let shellRendered = false;
    const { pipe, abort } = renderToPipeableStream(
      /* @__PURE__ */ jsx(
        RemixServer,
        {
          context: remixContext,
          url: request.url,
          abortDelay: ABORT_DELAY
        }
      ),
      {
        onShellReady() {
          shellRendered = true;
          const body = new PassThrough();
          const stream = createReadableStreamFromReadable(body);
          responseHeaders.set("Content-Type", "text/html");
          resolve(
            new Response(stream, {
              headers: responseHeaders,
              status: responseStatusCode
            })
          );
          pipe(body);
        },
        onShellError(error) {
          reject(error);
        },
        onError(error) {
          responseStatusCode = 500;
          if (shellRendered) {
            console.error(error);
          }
        }
      }
    );
    setTimeout(abort, ABORT_DELAY);
  });
}
const entryServer = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: handleRequest
}, Symbol.toStringTag, { value: "Module" }));
const stylesUrl = "/assets/app-C7QnGJ25.css";
const NAV_ITEMS = [
  { to: "/", label: "Acasă", end: true },
  { to: "/geoportal", label: "Geoportal" },
  { to: "/parcel-sync", label: "Sincronizare parcele" },
  { to: "/infrastructura-harti", label: "Infrastructură hărți" }
];
function navItemsFor(user) {
  return NAV_ITEMS.filter((item) => !item.adminOnly || user.isAdmin);
}
const COMPANY_CODES = { B: "BTG", U: "URB", S: "STD", G: "GRP" };
function companyLabel(company) {
  if (!company) return "fără companie";
  const base = `${COMPANY_CODES[company]} (${company})`;
  return company === "G" ? `${base} · grup` : base;
}
function ErrorPanel({ status, title, message }) {
  return /* @__PURE__ */ jsxs("section", { className: "error-panel", role: "alert", "data-testid": "error-panel", children: [
    status ? /* @__PURE__ */ jsxs("p", { className: "error-panel__code", children: [
      "Eroare ",
      status
    ] }) : null,
    /* @__PURE__ */ jsx("h1", { className: "error-panel__title", children: title }),
    /* @__PURE__ */ jsx("p", { className: "error-panel__text", children: message }),
    /* @__PURE__ */ jsx("a", { className: "btn btn--primary", href: "/", children: "Înapoi la pagina principală" })
  ] });
}
function signInUrl(request) {
  const url = new URL(request.url);
  return `/auth/login?callbackUrl=${encodeURIComponent(url.pathname + url.search)}`;
}
function requireSession(request, context) {
  const auth = context.auth;
  if (!auth || auth.error === "RefreshAccessTokenError") throw redirectDocument(signInUrl(request));
  return auth;
}
const PRODUCT_NAME = "Geoportal cadastral";
const FAVICON = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E%3Crect width='32' height='32' rx='7' fill='%230f766e'/%3E%3Cpath d='M8 10l8-4 8 4v12l-8 4-8-4z' fill='none' stroke='white' stroke-width='2' stroke-linejoin='round'/%3E%3Cpath d='M16 6v20M8 10l8 4 8-4' fill='none' stroke='white' stroke-width='2' stroke-linejoin='round'/%3E%3C/svg%3E";
const links$4 = () => [
  { rel: "stylesheet", href: stylesUrl },
  { rel: "icon", href: FAVICON, type: "image/svg+xml" }
];
const meta$7 = () => [
  { title: PRODUCT_NAME },
  { name: "description", content: "Geoportal cadastral și serviciu de date despre parcele" }
];
async function loader$7({ request, context }) {
  const auth = requireSession(request, context);
  const user = {
    name: auth.user.name,
    email: auth.user.email,
    company: auth.user.company,
    isAdmin: auth.isAdmin
  };
  return { user };
}
function BrandMark() {
  return /* @__PURE__ */ jsxs("svg", { className: "brand__mark", viewBox: "0 0 32 32", "aria-hidden": "true", children: [
    /* @__PURE__ */ jsx("rect", { width: "32", height: "32", rx: "7" }),
    /* @__PURE__ */ jsx("path", { d: "M8 10l8-4 8 4v12l-8 4-8-4z M16 6v20 M8 10l8 4 8-4" })
  ] });
}
function initials(name) {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  return (parts.length > 1 ? parts[0][0] + parts[parts.length - 1][0] : (parts[0] ?? "?").slice(0, 2)).toUpperCase();
}
function TopBar({ user }) {
  return /* @__PURE__ */ jsx("header", { className: "topbar", children: /* @__PURE__ */ jsxs("div", { className: "topbar__inner", children: [
    /* @__PURE__ */ jsxs("a", { className: "brand", href: "/", children: [
      /* @__PURE__ */ jsx(BrandMark, {}),
      /* @__PURE__ */ jsx("span", { className: "brand__name", children: PRODUCT_NAME })
    ] }),
    user ? /* @__PURE__ */ jsx("nav", { className: "mainnav", "aria-label": "Module", children: navItemsFor(user).map((item) => /* @__PURE__ */ jsx(
      NavLink,
      {
        to: item.to,
        end: item.end,
        prefetch: "intent",
        className: ({ isActive }) => isActive ? "mainnav__link is-active" : "mainnav__link",
        children: item.label
      },
      item.to
    )) }) : null,
    user ? /* @__PURE__ */ jsxs("div", { className: "account", children: [
      /* @__PURE__ */ jsx("span", { className: "account__avatar", "aria-hidden": "true", title: `${user.name} · ${user.email}`, children: initials(user.name) }),
      /* @__PURE__ */ jsxs("span", { className: "account__who", children: [
        /* @__PURE__ */ jsx("span", { className: "account__name", "data-testid": "user-name", children: user.name }),
        /* @__PURE__ */ jsx("span", { className: "account__company", "data-testid": "user-company", children: companyLabel(user.company) })
      ] }),
      /* @__PURE__ */ jsx("form", { method: "post", action: "/auth/logout", className: "account__logout", children: /* @__PURE__ */ jsx("button", { type: "submit", className: "btn btn--ghost", "data-testid": "logout", children: "Deconectare" }) })
    ] }) : null
  ] }) });
}
function Layout({ children }) {
  const data2 = useRouteLoaderData("root");
  return /* @__PURE__ */ jsxs("html", { lang: "ro", children: [
    /* @__PURE__ */ jsxs("head", { children: [
      /* @__PURE__ */ jsx("meta", { charSet: "utf-8" }),
      /* @__PURE__ */ jsx("meta", { name: "viewport", content: "width=device-width, initial-scale=1" }),
      /* @__PURE__ */ jsx("meta", { name: "color-scheme", content: "light" }),
      /* @__PURE__ */ jsx(Meta, {}),
      /* @__PURE__ */ jsx(Links, {})
    ] }),
    /* @__PURE__ */ jsxs("body", { children: [
      /* @__PURE__ */ jsx(TopBar, { user: data2?.user }),
      /* @__PURE__ */ jsx("main", { className: "page", children }),
      /* @__PURE__ */ jsx(ScrollRestoration, {}),
      /* @__PURE__ */ jsx(Scripts, {})
    ] })
  ] });
}
function App() {
  return /* @__PURE__ */ jsx(Outlet, {});
}
function messageOf(data2) {
  if (typeof data2 === "string" && data2.trim()) return data2;
  if (data2 && typeof data2 === "object" && typeof data2.message === "string") {
    return data2.message;
  }
  return void 0;
}
function ErrorBoundary() {
  const error = useRouteError();
  let status;
  let title = "A apărut o eroare neașteptată";
  let message = "Pagina nu a putut fi afișată. Încercați din nou; dacă problema persistă, contactați administratorul.";
  if (isRouteErrorResponse(error)) {
    status = error.status;
    if (error.status === 404) {
      title = "Pagina nu a fost găsită";
      message = "Adresa cerută nu există sau a fost mutată.";
    } else if (error.status === 401 || error.status === 403) {
      title = "Acces refuzat";
      message = messageOf(error.data) ?? "Nu aveți dreptul să vedeți această pagină.";
    } else {
      message = messageOf(error.data) ?? message;
    }
  }
  return /* @__PURE__ */ jsx(ErrorPanel, { status, title, message });
}
const route0 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  ErrorBoundary,
  Layout,
  PRODUCT_NAME,
  default: App,
  links: links$4,
  loader: loader$7,
  meta: meta$7
}, Symbol.toStringTag, { value: "Module" }));
const enrichmentCss = "/assets/enrichment-DwcVTtDd.css";
function enrichmentDeps() {
  return { db: getPool(), portal: enrichmentPortal(getLandregClient()) };
}
function viewerOf(auth) {
  return { basicPanel: auth.basicPanel, enrichmentScope: auth.enrichmentScope ?? "none" };
}
const goneCentralApiMessage = () => errors.goneCentralApi().message;
function failureMessage(err) {
  if (err instanceof AppError) return err.message;
  return "A apărut o eroare neașteptată.";
}
async function uatsWithParcels() {
  const r = await getPool().query(
    `SELECT u.siruta, u.name, u.county, c.n AS parcels
       FROM (SELECT siruta, count(*)::int AS n FROM gis_features WHERE layer_id = 'TERENURI_ACTIVE' GROUP BY siruta) c
       JOIN gis_uats u USING (siruta)
      ORDER BY u.name`
  );
  return r.rows;
}
const nf = new Intl.NumberFormat("ro-RO", { maximumFractionDigits: 0 });
const formatInt = (n) => nf.format(n);
function formatArea(m2) {
  if (m2 === null || m2 === void 0) return "—";
  if (m2 >= 1e4) return `${new Intl.NumberFormat("ro-RO", { maximumFractionDigits: 2 }).format(m2 / 1e4)} ha`;
  return `${nf.format(m2)} m²`;
}
const LABELS = [
  ["NR_CAD", "Număr cadastral"],
  ["NR_CF", "Număr carte funciară"],
  ["NR_CF_VECHI", "Număr CF vechi"],
  ["NR_TOPO", "Număr topografic"],
  ["UAT", "UAT"],
  ["SIRUTA", "Cod SIRUTA"],
  ["JUDET", "Județ"],
  ["IMMOVABLE_ID", "ID imobil"],
  ["WORKSPACE_ID", "ID județ (portal)"],
  ["TIP_IMOBIL", "Tip imobil"],
  ["SUPRAFATA", "Suprafață"],
  ["SUPRAFATA_MASURATA", "Suprafață măsurată"],
  ["SUPRAFATA_ACTE", "Suprafață din acte"],
  ["INTRAVILAN", "Intravilan"],
  ["CATEGORIE", "Categorii de folosință"],
  ["ADRESA", "Adresă"],
  ["PROPRIETARI", "Proprietari actuali"],
  ["PROPRIETARI_VECHI", "Proprietari anteriori"],
  ["NR_PROPRIETARI", "Număr proprietari"],
  ["SOLICITANT", "Solicitant"],
  ["HAS_BUILDING", "Are construcții"],
  ["BUILD_LEGAL", "Construcții intabulate"],
  ["DOC", "Documentații"],
  ["DATA_SURSA", "Valabil de la"],
  ["ENRICHED_AT", "Îmbogățit la"]
];
const PERSONAL = /* @__PURE__ */ new Set(["NR_CF", "ADRESA", "PROPRIETARI", "PROPRIETARI_VECHI", "SOLICITANT", "DOC"]);
const AREAS = /* @__PURE__ */ new Set(["SUPRAFATA", "SUPRAFATA_MASURATA", "SUPRAFATA_ACTE"]);
function show$1(key, v) {
  if (v === null || v === void 0 || v === "") return "—";
  if (AREAS.has(key) && typeof v === "number") return formatArea(v);
  if (key === "HAS_BUILDING" || key === "BUILD_LEGAL") return v === 1 ? "Da" : "Nu";
  if (key === "DATA_SURSA" || key === "ENRICHED_AT") return new Date(String(v)).toLocaleDateString("ro-RO");
  return String(v);
}
function RestrictedNotice() {
  return /* @__PURE__ */ jsx("p", { className: "notice notice--warn", "data-testid": "restricted-notice", children: "Acces restricționat: contul dumneavoastră vede doar numărul cadastral și suprafața parcelei." });
}
function EnrichmentFields({ enrichment, restricted, redacted }) {
  if (restricted) {
    return /* @__PURE__ */ jsxs(Fragment, { children: [
      /* @__PURE__ */ jsxs("dl", { className: "facts", children: [
        /* @__PURE__ */ jsxs("div", { children: [
          /* @__PURE__ */ jsx("dt", { children: "Număr cadastral" }),
          /* @__PURE__ */ jsx("dd", { children: show$1("NR_CAD", enrichment?.NR_CAD) })
        ] }),
        /* @__PURE__ */ jsxs("div", { children: [
          /* @__PURE__ */ jsx("dt", { children: "Suprafață" }),
          /* @__PURE__ */ jsx("dd", { children: show$1("SUPRAFATA", enrichment?.SUPRAFATA) })
        ] })
      ] }),
      /* @__PURE__ */ jsx(RestrictedNotice, {})
    ] });
  }
  if (!enrichment) return /* @__PURE__ */ jsx("p", { className: "muted", children: "Parcela nu a fost încă îmbogățită cu date din cartea funciară." });
  const uses = Array.isArray(enrichment.FOLOSINTE) ? enrichment.FOLOSINTE : [];
  return /* @__PURE__ */ jsxs(Fragment, { children: [
    /* @__PURE__ */ jsx("dl", { className: "facts facts--wide", "data-testid": "enrichment-fields", children: LABELS.map(([key, label]) => /* @__PURE__ */ jsxs("div", { children: [
      /* @__PURE__ */ jsx("dt", { children: label }),
      /* @__PURE__ */ jsx("dd", { children: redacted && PERSONAL.has(key) ? /* @__PURE__ */ jsx("span", { className: "muted", children: "ascuns (acces de bază)" }) : show$1(key, enrichment[key]) })
    ] }, key)) }),
    uses.length > 0 && /* @__PURE__ */ jsxs("table", { className: "table", children: [
      /* @__PURE__ */ jsx("caption", { children: "Folosințe" }),
      /* @__PURE__ */ jsx("thead", { children: /* @__PURE__ */ jsxs("tr", { children: [
        /* @__PURE__ */ jsx("th", { children: "Categorie" }),
        /* @__PURE__ */ jsx("th", { children: "Suprafață" }),
        /* @__PURE__ */ jsx("th", { children: "Intravilan" })
      ] }) }),
      /* @__PURE__ */ jsx("tbody", { children: uses.map((u, i) => /* @__PURE__ */ jsxs("tr", { children: [
        /* @__PURE__ */ jsx("td", { children: u.categorie }),
        /* @__PURE__ */ jsx("td", { children: formatArea(u.suprafata) }),
        /* @__PURE__ */ jsx("td", { children: u.intravilan ?? "—" })
      ] }, `${u.categorie}-${i}`)) })
    ] })
  ] });
}
const meta$6 = () => [{ title: "Parcelă · Sincronizare parcele" }];
const links$3 = () => [{ rel: "stylesheet", href: enrichmentCss }];
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
async function loader$6({ request, context, params }) {
  const auth = requireSession(request, context);
  const id = params.id ?? "";
  const parcel = UUID_RE.test(id) ? await findParcel(enrichmentDeps().db, { id }) : null;
  if (!parcel) throw new Response("Parcela nu există în baza de date locală.", { status: 404 });
  const view = viewEnrichment(parcel.enrichment, viewerOf(auth));
  return {
    parcel: {
      id: parcel.id,
      siruta: parcel.siruta,
      objectId: parcel.objectId,
      cadastralRef: parcel.cadastralRef,
      areaValue: parcel.areaValue,
      noGeometry: parcel.geometrySource === "NO_GEOMETRY",
      enrichedAt: parcel.enrichedAt?.toISOString() ?? null
    },
    ...view,
    redacted: personalDataHidden(viewerOf(auth).enrichmentScope),
    canEnrich: !auth.useCentralApi
  };
}
async function action$1({ request, context, params }) {
  const auth = requireSession(request, context);
  if (auth.useCentralApi) return { ok: false, message: goneCentralApiMessage() };
  try {
    const f = await enrichOne(enrichmentDeps(), { id: params.id ?? "" }, viewerOf(auth), true);
    return { ok: true, message: `Parcela a fost îmbogățită (${new Date(f.enrichedAt ?? Date.now()).toLocaleString("ro-RO")}).` };
  } catch (err) {
    return { ok: false, message: failureMessage(err) };
  }
}
function ParcelView() {
  const d = useLoaderData();
  const result = useActionData();
  const nav = useNavigation();
  const busy = nav.state !== "idle" && nav.formMethod === "POST";
  return /* @__PURE__ */ jsxs("div", { className: "parcel-sync", children: [
    /* @__PURE__ */ jsxs("header", { className: "page-head", children: [
      /* @__PURE__ */ jsxs("p", { className: "page-head__eyebrow", children: [
        /* @__PURE__ */ jsx(Link, { to: `/parcel-sync?tab=search&siruta=${d.parcel.siruta}`, children: "Sincronizare parcele" }),
        " ·",
        " ",
        /* @__PURE__ */ jsxs(Link, { to: `/parcel-sync/dashboard?siruta=${d.parcel.siruta}`, children: [
          "Tablou UAT ",
          d.parcel.siruta
        ] })
      ] }),
      /* @__PURE__ */ jsxs("h1", { className: "page-head__title", children: [
        "Parcela ",
        d.parcel.cadastralRef ?? `#${d.parcel.objectId}`
      ] }),
      /* @__PURE__ */ jsxs("p", { className: "page-head__sub", children: [
        formatArea(d.parcel.areaValue),
        " · ",
        d.parcel.noGeometry ? "fără geometrie în stratul de parcele" : "cu geometrie",
        " ·",
        " ",
        d.parcel.enrichedAt ? `îmbogățită la ${new Date(d.parcel.enrichedAt).toLocaleDateString("ro-RO")}` : "neîmbogățită"
      ] })
    ] }),
    /* @__PURE__ */ jsxs("section", { className: "card", children: [
      /* @__PURE__ */ jsxs("header", { className: "card__head", children: [
        /* @__PURE__ */ jsx("h2", { className: "card__title", children: "Date din cartea funciară" }),
        d.canEnrich && !d.restricted && /* @__PURE__ */ jsx(Form, { method: "post", children: /* @__PURE__ */ jsx("button", { type: "submit", className: "btn btn--primary", disabled: busy, children: busy ? "Se îmbogățește…" : "Îmbogățește acum" }) })
      ] }),
      result && /* @__PURE__ */ jsx("p", { className: `notice ${result.ok ? "notice--ok" : "notice--fail"}`, role: result.ok ? "status" : "alert", children: result.message }),
      /* @__PURE__ */ jsx(EnrichmentFields, { enrichment: d.enrichment, restricted: d.restricted, redacted: d.redacted })
    ] })
  ] });
}
const route1 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  action: action$1,
  default: ParcelView,
  links: links$3,
  loader: loader$6,
  meta: meta$6
}, Symbol.toStringTag, { value: "Module" }));
const PALETTE = ["#0f766e", "#2563eb", "#b45309", "#7c3aed", "#15803d", "#c2410c", "#0891b2", "#be185d", "#4d7c0f", "#6b7685"];
function BarChart({ data: data2, title, unit }) {
  if (data2.length === 0) return /* @__PURE__ */ jsx("p", { className: "chart-empty", children: "Nu există date." });
  const max = Math.max(...data2.map((d) => d.value), 1);
  const row = 26;
  const labelW = 170;
  const barW = 320;
  const height = data2.length * row + 4;
  return /* @__PURE__ */ jsx("svg", { className: "chart", role: "img", "aria-label": title, viewBox: `0 0 ${labelW + barW + 110} ${height}`, width: "100%", children: data2.map((d, i) => {
    const w = Math.max(1, d.value / max * barW);
    const y = i * row + 2;
    return /* @__PURE__ */ jsxs("g", { transform: `translate(0 ${y})`, children: [
      /* @__PURE__ */ jsx("title", { children: `${d.label}: ${d.display ?? d.value}${unit ? ` ${unit}` : ""}` }),
      /* @__PURE__ */ jsx("text", { x: labelW - 8, y: row / 2 + 4, textAnchor: "end", className: "chart__label", children: d.label.length > 24 ? `${d.label.slice(0, 23)}…` : d.label }),
      /* @__PURE__ */ jsx("rect", { x: labelW, y: 4, width: w, height: row - 8, rx: 3, fill: PALETTE[i % PALETTE.length] }),
      /* @__PURE__ */ jsxs("text", { x: labelW + w + 6, y: row / 2 + 4, className: "chart__value", children: [
        d.display ?? d.value,
        unit ? ` ${unit}` : ""
      ] })
    ] }, d.label);
  }) });
}
function DonutChart({ data: data2, title, centre }) {
  const total = data2.reduce((s, d) => s + d.value, 0);
  if (total <= 0) return /* @__PURE__ */ jsx("p", { className: "chart-empty", children: "Nu există date." });
  const r = 60;
  const c = 2 * Math.PI * r;
  let offset = 0;
  return /* @__PURE__ */ jsxs("div", { className: "donut", children: [
    /* @__PURE__ */ jsxs("svg", { className: "chart", role: "img", "aria-label": title, viewBox: "0 0 160 160", width: "160", height: "160", children: [
      /* @__PURE__ */ jsx("g", { transform: "rotate(-90 80 80)", children: data2.map((d, i) => {
        const len = d.value / total * c;
        const el = /* @__PURE__ */ jsx("circle", { cx: "80", cy: "80", r, fill: "none", stroke: PALETTE[i % PALETTE.length], strokeWidth: "22", strokeDasharray: `${len} ${c - len}`, strokeDashoffset: -offset, children: /* @__PURE__ */ jsx("title", { children: `${d.label}: ${d.display ?? d.value}` }) }, d.label);
        offset += len;
        return el;
      }) }),
      centre && /* @__PURE__ */ jsx("text", { x: "80", y: "86", textAnchor: "middle", className: "donut__centre", children: centre })
    ] }),
    /* @__PURE__ */ jsx("ul", { className: "legend", children: data2.map((d, i) => /* @__PURE__ */ jsxs("li", { children: [
      /* @__PURE__ */ jsx("span", { className: "legend__swatch", style: { background: PALETTE[i % PALETTE.length] } }),
      d.label,
      ": ",
      /* @__PURE__ */ jsx("strong", { children: d.display ?? d.value }),
      " (",
      Math.round(d.value / total * 100),
      "%)"
    ] }, d.label)) })
  ] });
}
const meta$5 = () => [{ title: "Tablou UAT · Sincronizare parcele" }];
const links$2 = () => [{ rel: "stylesheet", href: enrichmentCss }];
async function loader$5({ request, context }) {
  const auth = requireSession(request, context);
  const siruta = Number(new URL(request.url).searchParams.get("siruta") ?? "") || null;
  const uats = await uatsWithParcels().catch(() => []);
  let dashboard = null;
  let error = null;
  if (siruta) {
    try {
      dashboard = await uatDashboard(enrichmentDeps().db, siruta, viewerOf(auth));
    } catch (err) {
      error = failureMessage(err);
    }
  }
  return { siruta, uats, dashboard, error, basicPanel: auth.basicPanel };
}
const INTRAVILAN_LABEL = { DA: "Intravilan", NU: "Extravilan", MIXT: "Mixt", NECUNOSCUT: "Necunoscut" };
function Dashboard() {
  const { siruta, uats, dashboard: d, error, basicPanel } = useLoaderData();
  const nav = useNavigation();
  const busy = nav.state === "loading";
  return /* @__PURE__ */ jsxs("div", { className: "parcel-sync", children: [
    /* @__PURE__ */ jsxs("header", { className: "page-head", children: [
      /* @__PURE__ */ jsx("p", { className: "page-head__eyebrow", children: /* @__PURE__ */ jsx(Link, { to: `/parcel-sync?tab=search${siruta ? `&siruta=${siruta}` : ""}`, children: "Sincronizare parcele" }) }),
      /* @__PURE__ */ jsxs("h1", { className: "page-head__title", children: [
        "Tablou UAT",
        d?.uatName ? `: ${d.uatName}` : ""
      ] }),
      d && /* @__PURE__ */ jsxs("p", { className: "page-head__sub", children: [
        d.county ? `Județul ${d.county} · ` : "",
        "SIRUTA ",
        d.siruta,
        " · date din baza locală, ",
        new Date(d.generatedAt).toLocaleString("ro-RO")
      ] })
    ] }),
    /* @__PURE__ */ jsxs("section", { className: "card", children: [
      /* @__PURE__ */ jsxs(Form, { method: "get", className: "search-form", children: [
        /* @__PURE__ */ jsxs("label", { className: "field field--grow", children: [
          /* @__PURE__ */ jsx("span", { children: "UAT" }),
          /* @__PURE__ */ jsxs("select", { name: "siruta", defaultValue: siruta ?? "", required: true, children: [
            /* @__PURE__ */ jsx("option", { value: "", disabled: true, children: "Alegeți un UAT…" }),
            uats.map((u) => /* @__PURE__ */ jsxs("option", { value: u.siruta, children: [
              u.name,
              u.county ? ` (${u.county})` : "",
              " · ",
              u.parcels,
              " parcele"
            ] }, u.siruta))
          ] })
        ] }),
        /* @__PURE__ */ jsx("button", { type: "submit", className: "btn btn--primary", disabled: busy, children: busy ? "Se încarcă…" : "Afișează" })
      ] }),
      uats.length === 0 && /* @__PURE__ */ jsx("p", { className: "muted", children: "Nu există încă UAT-uri sincronizate în baza locală." })
    ] }),
    busy && /* @__PURE__ */ jsx("p", { className: "loading", role: "status", children: "Se calculează statisticile…" }),
    error && /* @__PURE__ */ jsx("p", { className: "notice notice--fail", role: "alert", children: error }),
    d && /* @__PURE__ */ jsxs(Fragment, { children: [
      /* @__PURE__ */ jsxs("div", { className: "stats", children: [
        /* @__PURE__ */ jsxs("div", { className: "stat", children: [
          /* @__PURE__ */ jsx("span", { className: "stat__value", children: formatArea(d.totalArea) }),
          /* @__PURE__ */ jsx("span", { className: "stat__label", children: "suprafață totală" })
        ] }),
        /* @__PURE__ */ jsxs("div", { className: "stat", children: [
          /* @__PURE__ */ jsx("span", { className: "stat__value", children: formatInt(d.parcels.total) }),
          /* @__PURE__ */ jsxs("span", { className: "stat__label", children: [
            "parcele (",
            formatInt(d.parcels.noGeometry),
            " fără geometrie)"
          ] })
        ] }),
        /* @__PURE__ */ jsxs("div", { className: "stat", children: [
          /* @__PURE__ */ jsxs("span", { className: "stat__value", children: [
            d.parcels.total ? Math.round(d.parcels.enriched / d.parcels.total * 100) : 0,
            "%"
          ] }),
          /* @__PURE__ */ jsxs("span", { className: "stat__label", children: [
            "îmbogățite (",
            formatInt(d.parcels.enriched),
            ")"
          ] })
        ] }),
        /* @__PURE__ */ jsxs("div", { className: "stat", children: [
          /* @__PURE__ */ jsx("span", { className: "stat__value", children: formatInt(d.buildings.total) }),
          /* @__PURE__ */ jsx("span", { className: "stat__label", children: "construcții" })
        ] })
      ] }),
      /* @__PURE__ */ jsxs("div", { className: "grid grid--2", children: [
        /* @__PURE__ */ jsxs("section", { className: "card", children: [
          /* @__PURE__ */ jsx("h2", { className: "card__title", children: "Intravilan / extravilan" }),
          /* @__PURE__ */ jsx(
            DonutChart,
            {
              title: "Împărțirea suprafeței în intravilan și extravilan",
              centre: formatArea(d.totalArea),
              data: d.intravilan.map((i) => ({ label: INTRAVILAN_LABEL[i.value] ?? i.value, value: i.area, display: `${formatArea(i.area)}, ${formatInt(i.parcels)} parcele` }))
            }
          )
        ] }),
        /* @__PURE__ */ jsxs("section", { className: "card", children: [
          /* @__PURE__ */ jsx("h2", { className: "card__title", children: "Construcții" }),
          /* @__PURE__ */ jsx(
            DonutChart,
            {
              title: "Construcții cu și fără acte",
              centre: formatInt(d.buildings.total),
              data: [
                { label: "Cu acte (intabulate)", value: d.buildings.withLegalDocuments },
                { label: "Fără acte", value: d.buildings.withoutLegalDocuments },
                { label: "Necunoscut", value: d.buildings.unknown }
              ].filter((x) => x.value > 0)
            }
          )
        ] })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", children: [
        /* @__PURE__ */ jsx("h2", { className: "card__title", children: "Folosința terenului" }),
        /* @__PURE__ */ jsx(BarChart, { title: "Suprafață pe categorii de folosință", data: d.landUse.map((u) => ({ label: u.categorie, value: u.area, display: `${formatArea(u.area)} · ${formatInt(u.parcels)} parcele` })) })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", children: [
        /* @__PURE__ */ jsx("h2", { className: "card__title", children: "Proprietari principali" }),
        d.topOwners === null ? /* @__PURE__ */ jsx("p", { className: "notice notice--warn", children: basicPanel ? "Acces restricționat: contul dumneavoastră nu vede proprietarii." : "Datele proprietarilor nu sunt disponibile pentru nivelul de acces al contului." }) : /* @__PURE__ */ jsx(BarChart, { title: "Proprietari după numărul de parcele", data: d.topOwners.map((o) => ({ label: o.name, value: o.parcels, display: `${o.parcels} parcele · ${formatArea(o.area)}` })) })
      ] })
    ] }),
    !d && !error && !busy && siruta === null && /* @__PURE__ */ jsx("p", { className: "muted", children: "Alegeți un UAT pentru a vedea statisticile." })
  ] });
}
const route2 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: Dashboard,
  links: links$2,
  loader: loader$5,
  meta: meta$5
}, Symbol.toStringTag, { value: "Module" }));
const bytesFormat = new Intl.NumberFormat("ro-RO", { maximumFractionDigits: 1 });
function formatBytes(n) {
  if (n === null || n === void 0) return "—";
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${bytesFormat.format(n / 1024)} KB`;
  if (n < 1024 ** 3) return `${bytesFormat.format(n / 1024 ** 2)} MB`;
  return `${bytesFormat.format(n / 1024 ** 3)} GB`;
}
function formatAge(seconds) {
  if (seconds === null || seconds === void 0) return "—";
  const unit = (n, one, many) => `acum ${n} ${n === 1 ? one : n < 20 ? many : `de ${many}`}`;
  if (seconds < 60) return "acum câteva secunde";
  if (seconds < 3600) return unit(Math.floor(seconds / 60), "minut", "minute");
  if (seconds < 86400) return unit(Math.floor(seconds / 3600), "oră", "ore");
  return unit(Math.floor(seconds / 86400), "zi", "zile");
}
const dateFormat = new Intl.DateTimeFormat("ro-RO", { dateStyle: "medium", timeStyle: "medium", timeZone: "Europe/Bucharest" });
function formatDate(iso) {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "—" : dateFormat.format(d);
}
const BUILD_STATUS_LABEL = {
  running: "în curs",
  done: "reușită",
  failed: "eșuată"
};
const BUILD_PHASE_LABEL = {
  export: "export MBTiles (GDAL)",
  convert: "conversie PMTiles",
  upload: "încărcare în stocare",
  done: "gata"
};
const meta$4 = () => [{ title: "Infrastructură hărți · Geoportal cadastral" }];
const REFRESH_WHILE_RUNNING_MS = 2e3;
async function loader$4({ request, context }) {
  requireSession(request, context);
  try {
    return { status: await tileInfraStatus(), error: null };
  } catch (err) {
    return { status: null, error: err instanceof AppError ? err.message : "Starea infrastructurii de hărți nu a putut fi citită." };
  }
}
async function action({ request, context }) {
  requireSession(request, context);
  try {
    const r = await startTileRebuild();
    return { ok: true, message: "Reconstruirea arhivei a pornit.", jobId: r.jobId };
  } catch (err) {
    if (err instanceof AppError && err.code === "already_running") {
      return { ok: true, message: "O reconstruire rulează deja; urmăriți progresul mai jos.", jobId: null };
    }
    return { ok: false, message: err instanceof AppError ? err.message : "Reconstruirea nu a putut fi pornită.", jobId: null };
  }
}
function TileInfrastructure() {
  const { status, error } = useLoaderData();
  const result = useActionData();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const running = status?.job?.status === "running";
  useEffect(() => {
    if (!running) return;
    const t = setInterval(() => {
      if (revalidator.state === "idle") revalidator.revalidate();
    }, REFRESH_WHILE_RUNNING_MS);
    return () => clearInterval(t);
  }, [running, revalidator]);
  const submitting = navigation.state === "submitting";
  const progress = status?.job?.progress;
  return /* @__PURE__ */ jsxs("div", { className: "tile-monitor", children: [
    /* @__PURE__ */ jsxs("header", { className: "page-head", children: [
      /* @__PURE__ */ jsx("p", { className: "page-head__eyebrow", children: "Utilitare" }),
      /* @__PURE__ */ jsx("h1", { className: "page-head__title", children: "Infrastructură hărți" }),
      /* @__PURE__ */ jsx("p", { className: "page-head__sub", children: "Arhiva PMTiles de ansamblu, reconstruirea ei și serverul de tile-uri vectoriale." })
    ] }),
    error ? /* @__PURE__ */ jsx("p", { className: "health__banner health__banner--error", role: "alert", children: error }) : null,
    status ? /* @__PURE__ */ jsxs("div", { className: "grid grid--2", children: [
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "archive-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "archive-title", className: "card__title", children: "Arhiva de ansamblu" }) }),
        status.archive ? /* @__PURE__ */ jsxs("dl", { className: "facts", "data-testid": "archive-facts", children: [
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Vechime" }),
            /* @__PURE__ */ jsx("dd", { "data-testid": "archive-age", children: formatAge(status.archive.ageSeconds) })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Actualizată" }),
            /* @__PURE__ */ jsx("dd", { children: formatDate(status.archive.lastModified) })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Dimensiune" }),
            /* @__PURE__ */ jsx("dd", { "data-testid": "archive-size", children: formatBytes(status.archive.sizeBytes) })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Adresă" }),
            /* @__PURE__ */ jsx("dd", { children: /* @__PURE__ */ jsx("code", { children: status.archive.url }) })
          ] })
        ] }) : /* @__PURE__ */ jsx("p", { className: "prose prose--muted", "data-testid": "archive-missing", children: "Arhiva nu a fost construită încă. Porniți o reconstruire." })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "rebuild-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "rebuild-title", className: "card__title", children: "Reconstruire" }) }),
        /* @__PURE__ */ jsx(Form, { method: "post", children: /* @__PURE__ */ jsx("button", { type: "submit", className: "btn btn--primary", disabled: submitting || running, "data-testid": "rebuild", children: running ? "Reconstruire în curs…" : submitting ? "Se pornește…" : "Reconstruiește arhiva" }) }),
        result ? /* @__PURE__ */ jsx("p", { className: result.ok ? "prose" : "health__banner health__banner--error", role: "status", "data-testid": "rebuild-message", children: result.message }) : null,
        status.job ? /* @__PURE__ */ jsxs("div", { className: "prose", "data-testid": "rebuild-job", children: [
          /* @__PURE__ */ jsxs("p", { children: [
            "Ultima cerere: ",
            formatDate(status.job.startedAt),
            " · stare",
            " ",
            /* @__PURE__ */ jsx("strong", { children: BUILD_STATUS_LABEL[status.job.status] ?? status.job.status })
          ] }),
          running ? /* @__PURE__ */ jsxs(Fragment, { children: [
            /* @__PURE__ */ jsx("progress", { max: 100, value: progress?.percent ?? 0, "aria-label": "Progres reconstruire" }),
            /* @__PURE__ */ jsx("p", { children: progress?.message ?? "Se așteaptă actualizarea arhivei…" })
          ] }) : null,
          status.job.status === "failed" && status.job.error ? /* @__PURE__ */ jsx("p", { className: "health__banner health__banner--error", children: status.job.error }) : null
        ] }) : /* @__PURE__ */ jsx("p", { className: "prose prose--muted", children: "Nicio reconstruire cerută încă." })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "builds-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "builds-title", className: "card__title", children: "Construiri recente" }) }),
        status.builds.length === 0 ? /* @__PURE__ */ jsx("p", { className: "prose prose--muted", children: "Nicio construire înregistrată." }) : /* @__PURE__ */ jsxs("table", { className: "table", "data-testid": "builds", children: [
          /* @__PURE__ */ jsx("thead", { children: /* @__PURE__ */ jsxs("tr", { children: [
            /* @__PURE__ */ jsx("th", { children: "Pornită" }),
            /* @__PURE__ */ jsx("th", { children: "Stare" }),
            /* @__PURE__ */ jsx("th", { children: "Etapă" }),
            /* @__PURE__ */ jsx("th", { children: "UAT / parcele" }),
            /* @__PURE__ */ jsx("th", { children: "Dimensiune" })
          ] }) }),
          /* @__PURE__ */ jsx("tbody", { children: status.builds.map((b) => /* @__PURE__ */ jsxs("tr", { title: b.error ?? void 0, children: [
            /* @__PURE__ */ jsx("td", { children: formatDate(b.startedAt) }),
            /* @__PURE__ */ jsx("td", { children: BUILD_STATUS_LABEL[b.status] ?? b.status }),
            /* @__PURE__ */ jsx("td", { children: b.phase ? BUILD_PHASE_LABEL[b.phase] ?? b.phase : "—" }),
            /* @__PURE__ */ jsxs("td", { children: [
              b.uatCount ?? "—",
              " / ",
              b.parcelCount ?? "—"
            ] }),
            /* @__PURE__ */ jsx("td", { children: formatBytes(b.sizeBytes) })
          ] }, b.id)) })
        ] })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "server-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "server-title", className: "card__title", children: "Server de tile-uri" }) }),
        /* @__PURE__ */ jsxs("dl", { className: "facts", children: [
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Mod" }),
            /* @__PURE__ */ jsx("dd", { children: status.tiles.mode === "proxy" ? `proxy către ${status.tiles.serverUrl}` : "PostGIS (ST_AsMVT)" })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Cache în memorie" }),
            /* @__PURE__ */ jsxs("dd", { children: [
              status.tiles.cache.entries,
              " tile-uri · ",
              formatBytes(status.tiles.cache.bytes),
              " · ",
              status.tiles.cache.hits,
              " reutilizări"
            ] })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Webhook reconstruire" }),
            /* @__PURE__ */ jsx("dd", { children: /* @__PURE__ */ jsx("code", { children: status.tiles.webhookUrl }) })
          ] })
        ] })
      ] })
    ] }) : null
  ] });
}
const route3 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  action,
  default: TileInfrastructure,
  loader: loader$4,
  meta: meta$4
}, Symbol.toStringTag, { value: "Module" }));
const meta$3 = () => [{ title: "Sincronizare parcele · Geoportal cadastral" }];
const links$1 = () => [{ rel: "stylesheet", href: enrichmentCss }];
async function loader$3({ request, context }) {
  const auth = requireSession(request, context);
  const viewer = viewerOf(auth);
  const url = new URL(request.url);
  const tab = url.searchParams.get("tab") ?? "search";
  const siruta = Number(url.searchParams.get("siruta") ?? "") || null;
  const cad = (url.searchParams.get("cad") ?? "").trim();
  const owner = (url.searchParams.get("owner") ?? "").trim();
  const uats = await uatsWithParcels().catch(() => []);
  let search = null;
  let owners = null;
  let error = null;
  if (tab === "search" && siruta) {
    try {
      if (cad) search = await searchCadastral(enrichmentDeps(), { siruta, cadastralNumbers: cad }, viewer);
      if (owner) owners = await searchOwner(enrichmentDeps(), { siruta, name: owner }, viewer);
    } catch (err) {
      error = failureMessage(err);
    }
  }
  return {
    tab,
    siruta,
    cad,
    owner,
    uats,
    search,
    owners,
    error,
    canSearchOwners: canSearchOwners(viewer),
    redacted: personalDataHidden(viewer.enrichmentScope)
  };
}
const TABS = [["search", "Căutare cadastrală"]];
function ParcelSync() {
  const d = useLoaderData();
  const nav = useNavigation();
  const busy = nav.state === "loading" && nav.location?.pathname === "/parcel-sync";
  const uat = d.uats.find((u) => u.siruta === d.siruta);
  return /* @__PURE__ */ jsxs("div", { className: "parcel-sync", children: [
    /* @__PURE__ */ jsxs("header", { className: "page-head", children: [
      /* @__PURE__ */ jsx("p", { className: "page-head__eyebrow", children: "Sincronizare parcele" }),
      /* @__PURE__ */ jsx("h1", { className: "page-head__title", children: "Căutare în cartea funciară" }),
      /* @__PURE__ */ jsx("p", { className: "page-head__sub", children: "Date din portalul de cadastru, completate cu proprietari, adresă și suprafețe." })
    ] }),
    /* @__PURE__ */ jsxs("nav", { className: "tabs", "aria-label": "Secțiuni", children: [
      TABS.map(([key, label]) => /* @__PURE__ */ jsx(Link, { to: `?tab=${key}`, className: `tabs__tab${d.tab === key ? " tabs__tab--active" : ""}`, "aria-current": d.tab === key ? "page" : void 0, children: label }, key)),
      /* @__PURE__ */ jsx(Link, { to: d.siruta ? `/parcel-sync/dashboard?siruta=${d.siruta}` : "/parcel-sync/dashboard", className: "tabs__tab", children: "Tablou UAT" })
    ] }),
    d.tab === "search" && /* @__PURE__ */ jsxs(Fragment, { children: [
      /* @__PURE__ */ jsxs("section", { className: "card", children: [
        /* @__PURE__ */ jsxs(Form, { method: "get", className: "search-form", children: [
          /* @__PURE__ */ jsx("input", { type: "hidden", name: "tab", value: "search" }),
          /* @__PURE__ */ jsxs("label", { className: "field", children: [
            /* @__PURE__ */ jsx("span", { children: "UAT (cod SIRUTA)" }),
            /* @__PURE__ */ jsx("input", { name: "siruta", list: "uat-list", inputMode: "numeric", required: true, defaultValue: d.siruta ?? "", placeholder: "ex. 42708" }),
            /* @__PURE__ */ jsx("datalist", { id: "uat-list", children: d.uats.map((u) => /* @__PURE__ */ jsxs("option", { value: u.siruta, children: [
              u.name,
              u.county ? `, jud. ${u.county}` : ""
            ] }, u.siruta)) })
          ] }),
          /* @__PURE__ */ jsxs("label", { className: "field field--grow", children: [
            /* @__PURE__ */ jsx("span", { children: "Numere cadastrale (separate prin virgulă)" }),
            /* @__PURE__ */ jsx("input", { name: "cad", defaultValue: d.cad, placeholder: "ex. 104777, 104778" })
          ] }),
          /* @__PURE__ */ jsxs("label", { className: "field field--grow", children: [
            /* @__PURE__ */ jsx("span", { children: "Proprietar" }),
            /* @__PURE__ */ jsx("input", { name: "owner", defaultValue: d.owner, disabled: !d.canSearchOwners, placeholder: d.canSearchOwners ? "ex. Popescu Ștefan" : "indisponibil pentru contul dumneavoastră" })
          ] }),
          /* @__PURE__ */ jsx("button", { type: "submit", className: "btn btn--primary", disabled: busy, children: busy ? "Se caută…" : "Caută" })
        ] }),
        uat && /* @__PURE__ */ jsxs("p", { className: "muted", children: [
          "UAT: ",
          uat.name,
          uat.county ? `, județul ${uat.county}` : "",
          " · ",
          uat.parcels,
          " parcele în baza locală"
        ] })
      ] }),
      busy && /* @__PURE__ */ jsx("p", { className: "loading", role: "status", children: "Se interoghează portalul de cadastru…" }),
      d.error && /* @__PURE__ */ jsx("p", { className: "notice notice--fail", role: "alert", children: d.error }),
      d.search && /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "cad-results", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsxs("h2", { id: "cad-results", className: "card__title", children: [
          "Rezultate pentru numerele cadastrale (",
          d.search.results.length,
          ")"
        ] }) }),
        d.search.notFound.length > 0 && /* @__PURE__ */ jsxs("p", { className: "notice notice--warn", children: [
          "Negăsite în acest UAT: ",
          d.search.notFound.join(", ")
        ] }),
        d.search.results.length === 0 && /* @__PURE__ */ jsx("p", { className: "muted", children: "Nicio parcelă găsită." }),
        d.search.results.map((r) => /* @__PURE__ */ jsxs("article", { className: "result", children: [
          /* @__PURE__ */ jsxs("h3", { className: "result__title", children: [
            "Nr. cadastral ",
            r.cadastralRef,
            r.matchedBy === "landbook" && /* @__PURE__ */ jsx("span", { className: "badge", children: "găsit după nr. CF" }),
            r.featureId ? /* @__PURE__ */ jsx(Link, { to: `/parcel-sync/parcel/${r.featureId}`, className: "btn btn--link", children: "Deschide parcela" }) : /* @__PURE__ */ jsx("span", { className: "badge badge--muted", children: "nu este în baza locală" })
          ] }),
          /* @__PURE__ */ jsx(EnrichmentFields, { enrichment: r.enrichment, restricted: r.restricted, redacted: d.redacted })
        ] }, r.immovablePk ?? r.cadastralRef))
      ] }),
      d.owners && /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "owner-results", children: [
        /* @__PURE__ */ jsxs("header", { className: "card__head", children: [
          /* @__PURE__ */ jsxs("h2", { id: "owner-results", className: "card__title", children: [
            "Proprietari „",
            d.owners.name,
            "” (",
            d.owners.results.length,
            ")"
          ] }),
          /* @__PURE__ */ jsx("span", { className: `badge badge--${d.owners.source}`, "data-testid": "owner-source", children: d.owners.source === "local" ? "sursa: baza locală" : d.owners.source === "online" ? "sursa: portal (online)" : "fără rezultate" })
        ] }),
        d.owners.results.length === 0 ? /* @__PURE__ */ jsx("p", { className: "muted", children: "Niciun proprietar găsit nici local, nici pe portal." }) : /* @__PURE__ */ jsxs("table", { className: "table", children: [
          /* @__PURE__ */ jsx("thead", { children: /* @__PURE__ */ jsxs("tr", { children: [
            /* @__PURE__ */ jsx("th", { children: "Nr. cadastral" }),
            /* @__PURE__ */ jsx("th", { children: "Nr. CF" }),
            /* @__PURE__ */ jsx("th", { children: "Proprietari găsiți" }),
            /* @__PURE__ */ jsx("th", { children: "Sursă" })
          ] }) }),
          /* @__PURE__ */ jsx("tbody", { children: d.owners.results.map((h) => /* @__PURE__ */ jsxs("tr", { children: [
            /* @__PURE__ */ jsx("td", { children: h.featureId ? /* @__PURE__ */ jsx(Link, { to: `/parcel-sync/parcel/${h.featureId}`, children: h.cadastralRef }) : h.cadastralRef }),
            /* @__PURE__ */ jsx("td", { children: h.nrCF ?? "—" }),
            /* @__PURE__ */ jsx("td", { children: h.owners.map((o, i) => /* @__PURE__ */ jsxs("div", { children: [
              o.name,
              o.share ? ` (${o.share})` : "",
              " ",
              !o.current && /* @__PURE__ */ jsx("span", { className: "badge badge--muted", children: "anterior" })
            ] }, i)) }),
            /* @__PURE__ */ jsx("td", { children: h.source === "local" ? "local" : "online" })
          ] }, `${h.immovablePk}-${h.featureId}`)) })
        ] })
      ] }),
      !d.search && !d.owners && !d.error && !busy && /* @__PURE__ */ jsx("p", { className: "muted", children: "Alegeți un UAT și introduceți numere cadastrale sau numele unui proprietar." })
    ] })
  ] });
}
const route4 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: ParcelSync,
  links: links$1,
  loader: loader$3,
  meta: meta$3
}, Symbol.toStringTag, { value: "Module" }));
const maplibreCss = "/assets/maplibre-gl--S9olhOP.css";
const geoportalCss = "/assets/geoportal-DcfctBw2.css";
class ApiError extends Error {
}
async function failure(res) {
  const body = await res.json().catch(() => null);
  return new ApiError(body?.message ?? `Cererea a eșuat (${res.status}).`);
}
async function getJson(url, signal) {
  const res = await fetch(url, { headers: { accept: "application/json" }, signal });
  if (!res.ok) throw await failure(res);
  return await res.json();
}
const searchPlaces = (q, signal) => getJson(`/api/geoportal/search?${new URLSearchParams({ q, limit: "12" })}`, signal);
const loadFeature = (key) => getJson(
  `/api/geoportal/feature?${new URLSearchParams("id" in key ? { id: key.id } : { siruta: String(key.siruta), objectId: String(key.objectId) })}`
);
const loadCfStatus = (nrCad, siruta) => getJson(`/api/geoportal/cf-status?${new URLSearchParams({ nrCad, siruta: String(siruta) })}`);
const loadCatalog = () => getJson("/tiles/catalog");
async function downloadExport(format, featureIds) {
  const res = await fetch("/api/geoportal/export", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ format, featureIds })
  });
  if (!res.ok) throw await failure(res);
  const name = /filename="([^"]+)"/.exec(res.headers.get("content-disposition") ?? "")?.[1] ?? `export.${format}`;
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1e4);
  return name;
}
const SEARCH_DEBOUNCE_MS = 300;
const KIND_LABEL = { uat: "UAT", parcel: "Parcelă", owner: "Proprietar" };
function SearchBox({ onPick }) {
  const [q, setQ] = useState("");
  const [results, setResults] = useState([]);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const [active, setActive] = useState(0);
  const abort = useRef(null);
  useEffect(() => {
    const text = q.trim();
    if (!text) {
      setResults([]);
      setError(null);
      return;
    }
    const timer = setTimeout(() => {
      abort.current?.abort();
      const ctl = new AbortController();
      abort.current = ctl;
      setBusy(true);
      searchPlaces(text, ctl.signal).then((r) => {
        setResults(r.results);
        setError(null);
        setActive(0);
        setOpen(true);
      }).catch((err) => {
        if (err.name !== "AbortError") setError(err.message);
      }).finally(() => setBusy(false));
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);
  const pick = (r) => {
    setOpen(false);
    onPick(r);
  };
  return /* @__PURE__ */ jsxs("div", { className: "gp-search", role: "search", children: [
    /* @__PURE__ */ jsxs("svg", { className: "gp-search__icon", viewBox: "0 0 20 20", "aria-hidden": "true", children: [
      /* @__PURE__ */ jsx("circle", { cx: "8.5", cy: "8.5", r: "5.5" }),
      /* @__PURE__ */ jsx("path", { d: "M13 13l4.5 4.5" })
    ] }),
    /* @__PURE__ */ jsx(
      "input",
      {
        type: "search",
        className: "gp-search__input",
        placeholder: "Caută UAT, număr cadastral sau proprietar",
        "aria-label": "Căutare în geoportal",
        "data-testid": "geoportal-search",
        value: q,
        onChange: (e) => setQ(e.target.value),
        onFocus: () => results.length && setOpen(true),
        onKeyDown: (e) => {
          if (e.key === "ArrowDown") setActive((a) => Math.min(a + 1, results.length - 1));
          else if (e.key === "ArrowUp") setActive((a) => Math.max(a - 1, 0));
          else if (e.key === "Enter" && results[active]) pick(results[active]);
          else if (e.key === "Escape") setOpen(false);
        }
      }
    ),
    busy ? /* @__PURE__ */ jsx("span", { className: "gp-search__spinner", "aria-hidden": "true" }) : null,
    open && q.trim() ? /* @__PURE__ */ jsxs("ul", { className: "gp-search__results", role: "listbox", "data-testid": "geoportal-search-results", children: [
      error ? /* @__PURE__ */ jsx("li", { className: "gp-search__empty", children: error }) : null,
      !error && results.length === 0 && !busy ? /* @__PURE__ */ jsxs("li", { className: "gp-search__empty", children: [
        "Niciun rezultat pentru „",
        q.trim(),
        "”."
      ] }) : null,
      results.map((r, i) => /* @__PURE__ */ jsx("li", { role: "option", "aria-selected": i === active, children: /* @__PURE__ */ jsxs(
        "button",
        {
          type: "button",
          className: i === active ? "gp-search__hit is-active" : "gp-search__hit",
          onMouseEnter: () => setActive(i),
          onClick: () => pick(r),
          children: [
            /* @__PURE__ */ jsx("span", { className: `gp-kind gp-kind--${r.kind}`, children: KIND_LABEL[r.kind] }),
            /* @__PURE__ */ jsx("span", { className: "gp-search__label", children: r.label }),
            r.kind !== "uat" && r.county ? /* @__PURE__ */ jsxs("span", { className: "gp-search__county", children: [
              "jud. ",
              r.county
            ] }) : null
          ]
        }
      ) }, `${r.kind}-${r.featureId ?? r.siruta}-${i}`))
    ] }) : null
  ] });
}
const FIELDS = [
  ["NR_CF", "Nr. carte funciară"],
  ["NR_CF_VECHI", "Nr. CF vechi"],
  ["NR_TOPO", "Nr. topografic"],
  ["TIP_IMOBIL", "Tip imobil"],
  ["SUPRAFATA_MASURATA", "Suprafață măsurată (m²)"],
  ["SUPRAFATA_ACTE", "Suprafață din acte (m²)"],
  ["INTRAVILAN", "Intravilan"],
  ["CATEGORIE", "Categorie de folosință"],
  ["ADRESA", "Adresă"],
  ["PROPRIETARI", "Proprietari"],
  ["PROPRIETARI_VECHI", "Foști proprietari"],
  ["SOLICITANT", "Solicitant"],
  ["HAS_BUILDING", "Are construcție"],
  ["BUILD_LEGAL", "Construcție cu acte"]
];
const area = (v) => v === null ? "—" : `${v.toLocaleString("ro-RO", { maximumFractionDigits: 2 })} m²`;
function show(key, v) {
  if (v === null || v === void 0 || v === "") return "—";
  if (key === "HAS_BUILDING" || key === "BUILD_LEGAL") return v === 1 || v === "1" || v === true ? "Da" : "Nu";
  if (Array.isArray(v)) return v.map((x) => typeof x === "object" ? JSON.stringify(x) : String(x)).join("; ");
  return String(v);
}
function CfStatusLine({ nrCad, siruta }) {
  const [state, setState] = useState(null);
  useEffect(() => setState(null), [nrCad, siruta]);
  if (state === null) {
    return /* @__PURE__ */ jsx(
      "button",
      {
        type: "button",
        className: "gp-btn gp-panel__cf",
        "data-testid": "cf-status-button",
        onClick: () => {
          setState("loading");
          loadCfStatus(nrCad, siruta).then(setState, (err) => setState({ error: err.message }));
        },
        children: "Verifică extrasul CF"
      }
    );
  }
  if (state === "loading") return /* @__PURE__ */ jsx("p", { className: "gp-panel__note", children: "Se verifică extrasul CF…" });
  if ("error" in state) return /* @__PURE__ */ jsx("p", { className: "gp-panel__note gp-panel__note--fail", children: state.error });
  if (!state.exists) return /* @__PURE__ */ jsx("p", { className: "gp-panel__note", "data-testid": "cf-status", children: "Nu există extras CF. Comanda costă 1 credit." });
  const until = state.expiresAt ? new Date(state.expiresAt).toLocaleDateString("ro-RO") : null;
  return /* @__PURE__ */ jsxs("p", { className: "gp-panel__note", "data-testid": "cf-status", children: [
    state.state === "processing" ? "Extras CF în curs de procesare." : null,
    state.state === "valid" ? `Extras CF valabil până la ${until}.` : null,
    state.state === "expired" ? `Extras CF expirat (${until}); o comandă nouă costă 1 credit.` : null,
    state.state === "failed" ? "Ultima comandă de extras CF a eșuat." : null,
    state.downloadUrl ? /* @__PURE__ */ jsxs(Fragment, { children: [
      " ",
      /* @__PURE__ */ jsx("a", { href: state.downloadUrl, children: "Descarcă PDF" })
    ] }) : null
  ] });
}
function FeaturePanel({
  state,
  onClose
}) {
  return /* @__PURE__ */ jsxs("aside", { className: "gp-panel", "data-testid": "feature-panel", "aria-label": "Informații parcelă", children: [
    /* @__PURE__ */ jsxs("header", { className: "gp-panel__head", children: [
      /* @__PURE__ */ jsxs("div", { children: [
        /* @__PURE__ */ jsx("p", { className: "gp-panel__eyebrow", children: "Parcelă" }),
        /* @__PURE__ */ jsx("h2", { className: "gp-panel__title", "data-testid": "feature-panel-title", children: "feature" in state ? `Nr. cadastral ${state.feature.cadastralRef ?? "—"}` : "loading" in state ? "Se încarcă…" : "Eroare" })
      ] }),
      /* @__PURE__ */ jsx("button", { type: "button", className: "gp-panel__close", "aria-label": "Închide", onClick: onClose, children: "×" })
    ] }),
    "error" in state ? /* @__PURE__ */ jsx("p", { className: "gp-panel__note gp-panel__note--fail", children: state.error }) : null,
    "feature" in state ? /* @__PURE__ */ jsx(PanelBody, { feature: state.feature }) : null
  ] });
}
function PanelBody({ feature }) {
  if ("restricted" in feature) {
    return /* @__PURE__ */ jsxs(Fragment, { children: [
      /* @__PURE__ */ jsx("dl", { className: "gp-facts", children: /* @__PURE__ */ jsxs("div", { children: [
        /* @__PURE__ */ jsx("dt", { children: "Suprafață" }),
        /* @__PURE__ */ jsx("dd", { children: area(feature.areaValue) })
      ] }) }),
      /* @__PURE__ */ jsx("p", { className: "gp-panel__notice", "data-testid": "restricted-notice", children: "Contul dumneavoastră are acces restrâns: sunt afișate doar numărul cadastral și suprafața." })
    ] });
  }
  const e = feature.enrichment ?? {};
  return /* @__PURE__ */ jsxs(Fragment, { children: [
    /* @__PURE__ */ jsxs("dl", { className: "gp-facts", children: [
      /* @__PURE__ */ jsxs("div", { children: [
        /* @__PURE__ */ jsx("dt", { children: "UAT" }),
        /* @__PURE__ */ jsxs("dd", { children: [
          feature.uatName ?? "—",
          " ",
          /* @__PURE__ */ jsxs("span", { className: "gp-muted", children: [
            "(",
            feature.siruta,
            ")"
          ] })
        ] })
      ] }),
      /* @__PURE__ */ jsxs("div", { children: [
        /* @__PURE__ */ jsx("dt", { children: "Suprafață" }),
        /* @__PURE__ */ jsx("dd", { children: area(feature.areaValue) })
      ] }),
      feature.enrichment ? FIELDS.filter(([k]) => k in e).map(([k, label]) => /* @__PURE__ */ jsxs("div", { children: [
        /* @__PURE__ */ jsx("dt", { children: label }),
        /* @__PURE__ */ jsx("dd", { children: show(k, e[k]) })
      ] }, k)) : null
    ] }),
    /* @__PURE__ */ jsx("p", { className: "gp-panel__note", children: feature.enrichedAt ? `Date îmbogățite la ${new Date(feature.enrichedAt).toLocaleString("ro-RO")}.` : "Parcela nu are încă date îmbogățite (proprietari, CF, adresă)." }),
    feature.cadastralRef ? /* @__PURE__ */ jsx(CfStatusLine, { nrCad: feature.cadastralRef, siruta: feature.siruta }) : null
  ] });
}
const GLYPHS_URL = "localglyphs://{fontstack}/{range}";
const LABEL_FONT = ["Sans Regular"];
const FONT_SIZE = 24;
const BUFFER = 3;
const RADIUS = 8;
const TOP_ADJUST = 27;
let sdf;
function drawRange(start) {
  sdf ??= new TinySDF({
    fontSize: FONT_SIZE,
    buffer: BUFFER,
    radius: RADIUS,
    cutoff: 0.25,
    fontFamily: "'Noto Sans', 'DejaVu Sans', 'Liberation Sans', Arial, sans-serif",
    fontWeight: "600"
  });
  const out = [];
  for (let id = start; id < start + 256; id++) {
    if (id < 32 || id >= 127 && id < 160 || id >= 55296 && id < 57344) continue;
    const g = sdf.draw(String.fromCharCode(id));
    out.push({
      id,
      bitmap: g.glyphWidth > 0 ? new Uint8Array(g.data.buffer, g.data.byteOffset, g.data.length) : new Uint8Array(0),
      width: g.glyphWidth,
      height: g.glyphHeight,
      left: Math.round(g.glyphLeft),
      top: Math.round(g.glyphTop - TOP_ADJUST),
      advance: Math.round(g.glyphAdvance)
    });
  }
  return out;
}
function encodeGlyphRange(fontstack, start, glyphs) {
  const pbf = new PbfWriter();
  pbf.writeMessage(
    1,
    (_, p) => {
      p.writeStringField(1, fontstack);
      p.writeStringField(2, `${start}-${start + 255}`);
      for (const g of glyphs) {
        p.writeMessage(
          3,
          (glyph, q) => {
            q.writeVarintField(1, glyph.id);
            if (glyph.bitmap.length) q.writeBytesField(2, glyph.bitmap);
            q.writeVarintField(3, glyph.width);
            q.writeVarintField(4, glyph.height);
            q.writeSVarintField(5, glyph.left);
            q.writeSVarintField(6, glyph.top);
            q.writeVarintField(7, glyph.advance);
          },
          g
        );
      }
    },
    null
  );
  const bytes = pbf.finish();
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}
const cache = /* @__PURE__ */ new Map();
async function localGlyphs(params) {
  const m = /^localglyphs:\/\/([^/]+)\/(\d+)-\d+/.exec(params.url);
  if (!m) throw new Error(`bad glyph URL ${params.url}`);
  const fontstack = decodeURIComponent(m[1]);
  const start = Number(m[2]);
  const key = `${fontstack}/${start}`;
  let data2 = cache.get(key);
  if (!data2) {
    data2 = encodeGlyphRange(fontstack, start, drawRange(start));
    cache.set(key, data2);
  }
  return { data: data2.slice(0) };
}
const COLORS = {
  background: "#f3f2ee",
  uat: "#4b5563",
  parcelPlain: "#d97706",
  // amber: not enriched
  parcelEnriched: "#16a34a",
  // green: enriched
  buildingIllegal: "#dc2626",
  buildingLegal: "#2563eb",
  buildingUnknown: "#6b7280",
  intravilan: "#7c3aed",
  selection: "#0284c7",
  highlight: "#111827"
};
const INTRAVILAN_MINZOOM = 13;
const LABEL_MINZOOM = 16;
const LIVE_PARCELS_MINZOOM_WITH_OVERVIEW = 13;
const BASEMAPS = [
  { id: "none", label: "Fără hartă de fundal", online: false },
  { id: "osm", label: "OpenStreetMap", online: true },
  { id: "ortho", label: "Ortofoto", online: true }
];
const LAYER = {
  parcelsFill: "parcele-fill",
  parcelsLine: "parcele-contur",
  overviewParcelsFill: "overview-parcele-fill",
  buildingsFill: "cladiri-fill",
  selectionFill: "selectie-fill",
  selectionLine: "selectie-contur",
  highlight: "evidentiere"
};
const abs = (origin, path) => `${origin}${path}`;
function vectorSource(origin, s) {
  return { type: "vector", tiles: [abs(origin, `/tiles/${s.name}/{z}/{x}/{y}`)], minzoom: s.minzoom, maxzoom: Math.min(s.maxzoom, 16) };
}
function uatLayers(sources) {
  const bands = [
    ["gis_uats_z0", 0, 5],
    ["gis_uats_z5", 5, 8],
    ["gis_uats_z8", 8, 12],
    ["gis_uats_z12", 12, 24]
  ];
  const out = [];
  for (const [name, minzoom, maxzoom] of bands) {
    const s = sources.get(name);
    if (!s) continue;
    out.push({
      id: `uat-${name}`,
      type: "line",
      source: name,
      "source-layer": s.layer,
      minzoom,
      maxzoom,
      paint: {
        "line-color": COLORS.uat,
        "line-width": ["interpolate", ["linear"], ["zoom"], 5, 0.6, 10, 1.4, 14, 2.2],
        "line-opacity": 0.85
      }
    });
    if (minzoom >= 8) {
      out.push({
        id: `uat-nume-${name}`,
        type: "symbol",
        source: name,
        "source-layer": s.layer,
        minzoom: Math.max(minzoom, 9),
        maxzoom: Math.min(maxzoom, 14),
        layout: { "text-field": ["get", "name"], "text-font": LABEL_FONT, "text-size": 13, "text-letter-spacing": 0.04, "symbol-placement": "point" },
        paint: { "text-color": "#374151", "text-halo-color": "#ffffff", "text-halo-width": 1.6 }
      });
    }
  }
  return out;
}
const parcelColor = ["case", ["==", ["get", "has_enrichment"], 1], COLORS.parcelEnriched, COLORS.parcelPlain];
const buildingColor = [
  "match",
  ["get", "build_legal"],
  1,
  COLORS.buildingLegal,
  0,
  COLORS.buildingIllegal,
  COLORS.buildingUnknown
];
function buildStyle(opts) {
  const { origin, catalog, overview } = opts;
  const sources = new Map(catalog.map((s) => [s.name, s]));
  const styleSources = {
    osm: {
      type: "raster",
      tiles: ["https://tile.openstreetmap.org/{z}/{x}/{y}.png"],
      tileSize: 256,
      maxzoom: 19,
      attribution: "© colaboratorii OpenStreetMap"
    },
    ortho: {
      type: "raster",
      tiles: ["https://server.arcgisonline.com/ArcGIS/rest/services/World_Imagery/MapServer/tile/{z}/{y}/{x}"],
      tileSize: 256,
      maxzoom: 19,
      attribution: "Ortofoto © Esri, Maxar, Earthstar Geographics"
    }
  };
  for (const s of catalog) styleSources[s.name] = vectorSource(origin, s);
  if (overview) styleSources.overview = { type: "vector", url: `pmtiles://${overview.url}` };
  const layers = [
    { id: "fundal", type: "background", paint: { "background-color": COLORS.background } },
    { id: "basemap-osm", type: "raster", source: "osm", layout: { visibility: opts.basemap === "osm" ? "visible" : "none" } },
    { id: "basemap-ortho", type: "raster", source: "ortho", layout: { visibility: opts.basemap === "ortho" ? "visible" : "none" } }
  ];
  const terenuri = sources.get("gis_terenuri_status");
  const liveMin = overview && terenuri ? Math.max(terenuri.minzoom, LIVE_PARCELS_MINZOOM_WITH_OVERVIEW) : terenuri?.minzoom ?? 10;
  if (overview) {
    for (const l of overview.layers) {
      const isParcels = /parc|teren/i.test(l.id);
      if (isParcels) {
        layers.push({
          id: LAYER.overviewParcelsFill,
          type: "fill",
          source: "overview",
          "source-layer": l.id,
          maxzoom: liveMin,
          paint: { "fill-color": COLORS.parcelPlain, "fill-opacity": 0.06 }
        });
        layers.push({
          id: `overview-${l.id}`,
          type: "line",
          source: "overview",
          "source-layer": l.id,
          maxzoom: liveMin,
          paint: { "line-color": COLORS.parcelPlain, "line-width": 0.5, "line-opacity": 0.7 }
        });
      } else if (!sources.has("gis_uats_z0")) {
        layers.push({
          id: `overview-${l.id}`,
          type: "line",
          source: "overview",
          "source-layer": l.id,
          paint: { "line-color": COLORS.uat, "line-width": 0.8 }
        });
      }
    }
  }
  if (terenuri) {
    layers.push(
      {
        id: LAYER.parcelsFill,
        type: "fill",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        minzoom: liveMin,
        // A faint tint: the map under it stays readable, and the fill still takes clicks.
        paint: { "fill-color": parcelColor, "fill-opacity": ["interpolate", ["linear"], ["zoom"], 13, 0.1, 18, 0.16] }
      },
      {
        id: LAYER.parcelsLine,
        type: "line",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        minzoom: liveMin,
        paint: { "line-color": parcelColor, "line-width": ["interpolate", ["linear"], ["zoom"], 13, 0.6, 17, 1.6] }
      }
    );
  }
  const cladiri = sources.get("gis_cladiri_status");
  if (cladiri) {
    const min = Math.max(cladiri.minzoom, 14);
    layers.push(
      {
        id: LAYER.buildingsFill,
        type: "fill",
        source: cladiri.name,
        "source-layer": cladiri.layer,
        minzoom: min,
        paint: { "fill-color": buildingColor, "fill-opacity": 0.55 }
      },
      {
        id: "cladiri-contur",
        type: "line",
        source: cladiri.name,
        "source-layer": cladiri.layer,
        minzoom: min,
        paint: { "line-color": buildingColor, "line-width": 1 }
      }
    );
  }
  const admin = sources.get("gis_administrativ");
  if (admin) {
    layers.push({
      id: "intravilan",
      type: "line",
      source: admin.name,
      "source-layer": admin.layer,
      minzoom: Math.max(admin.minzoom, INTRAVILAN_MINZOOM),
      filter: ["==", ["get", "layer_id"], "LIMITE_INTRAV_DYNAMIC"],
      // line-gap-width: two parallel lines with a gap between them, i.e. a double line, no fill.
      paint: { "line-color": COLORS.intravilan, "line-width": 1.3, "line-gap-width": 3 }
    });
  }
  layers.push(...uatLayers(sources));
  if (terenuri) {
    const none = ["in", ["get", "id"], ["literal", []]];
    layers.push(
      {
        id: LAYER.selectionFill,
        type: "fill",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        filter: none,
        paint: { "fill-color": COLORS.selection, "fill-opacity": 0.35 }
      },
      {
        id: LAYER.selectionLine,
        type: "line",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        filter: none,
        paint: { "line-color": COLORS.selection, "line-width": 2.5 }
      },
      {
        id: LAYER.highlight,
        type: "line",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        filter: none,
        paint: { "line-color": COLORS.highlight, "line-width": 3 }
      },
      {
        id: "numere-cadastrale",
        type: "symbol",
        source: terenuri.name,
        "source-layer": terenuri.layer,
        minzoom: LABEL_MINZOOM,
        layout: {
          "text-field": ["coalesce", ["get", "cadastral_ref"], ""],
          "text-font": LABEL_FONT,
          "text-size": ["interpolate", ["linear"], ["zoom"], 16, 11, 19, 14],
          "text-max-width": 8,
          "symbol-placement": "point"
        },
        paint: { "text-color": "#1f2937", "text-halo-color": "#ffffff", "text-halo-width": 1.5 }
      }
    );
  }
  return {
    version: 8,
    glyphs: GLYPHS_URL,
    sources: styleSources,
    layers
  };
}
function idFilter(ids) {
  return ["in", ["get", "id"], ["literal", ids]];
}
const maplibreWorkerUrl = "/assets/maplibre-gl-worker-xfghGAye.js";
const ROMANIA = [20.2, 43.6, 29.8, 48.3];
let protocolsAdded = false;
function GeoportalMap({ basicPanel }) {
  const container = useRef(null);
  const mapRef = useRef(null);
  const [ready, setReady] = useState(false);
  const [loadError, setLoadError] = useState(null);
  const [basemap, setBasemap] = useState("none");
  const [panel, setPanel] = useState(null);
  const [selecting, setSelecting] = useState(false);
  const [selected, setSelected] = useState(/* @__PURE__ */ new Map());
  const [toast, setToast] = useState(null);
  const [exporting, setExporting] = useState(false);
  const selectingRef = useRef(selecting);
  selectingRef.current = selecting;
  const say = useCallback((text) => {
    setToast(text);
    window.setTimeout(() => setToast((t) => t === text ? null : t), 4e3);
  }, []);
  const openFeature = useCallback((key) => {
    setPanel({ loading: true });
    const map = mapRef.current;
    if (map?.getLayer(LAYER.highlight)) map.setFilter(LAYER.highlight, idFilter("id" in key ? [key.id] : []));
    loadFeature(key).then(
      (r) => setPanel({ feature: r.feature }),
      (err) => setPanel({ error: err.message })
    );
  }, []);
  const closePanel = useCallback(() => {
    setPanel(null);
    const map = mapRef.current;
    if (map?.getLayer(LAYER.highlight)) map.setFilter(LAYER.highlight, idFilter([]));
  }, []);
  const toggleSelected = useCallback((f) => {
    const id = f.properties?.id;
    if (!id) return false;
    setSelected((prev) => {
      const next = new Map(prev);
      if (next.has(id)) next.delete(id);
      else next.set(id, String(f.properties?.cadastral_ref ?? ""));
      return next;
    });
    return true;
  }, []);
  useEffect(() => {
    let disposed = false;
    let map;
    (async () => {
      const [maplibregl, pmtiles] = await Promise.all([import("maplibre-gl"), import("pmtiles")]);
      if (!protocolsAdded) {
        maplibregl.setWorkerUrl(maplibreWorkerUrl);
        maplibregl.addProtocol("pmtiles", new pmtiles.Protocol({ metadata: true }).tile);
        maplibregl.addProtocol("localglyphs", localGlyphs);
        protocolsAdded = true;
      }
      const catalog = await loadCatalog();
      const origin = window.location.origin;
      let overview = null;
      try {
        const archive = new pmtiles.PMTiles(`${origin}/tiles/overview.pmtiles`);
        const meta2 = await archive.getMetadata();
        if (meta2?.vector_layers?.length) overview = { url: `${origin}/tiles/overview.pmtiles`, layers: meta2.vector_layers };
      } catch {
        overview = null;
      }
      if (disposed || !container.current) return;
      const m = new maplibregl.Map({
        container: container.current,
        style: buildStyle({ origin, catalog: catalog.sources, overview, basemap: "none" }),
        bounds: ROMANIA,
        fitBoundsOptions: { padding: 20 },
        maxZoom: 20,
        attributionControl: { compact: true },
        // Right-click leaves selection mode, so it must not start a rotation; Shift+click selects
        // parcels, so Shift must not start MapLibre's box zoom.
        dragRotate: false,
        pitchWithRotate: false,
        boxZoom: false
      });
      map = m;
      m.touchZoomRotate.disableRotation();
      m.addControl(new maplibregl.NavigationControl({ showCompass: false }), "bottom-right");
      m.addControl(new maplibregl.ScaleControl({ unit: "metric" }), "bottom-right");
      mapRef.current = m;
      window.geoportalMap = m;
      const clickable = () => [LAYER.parcelsFill, LAYER.overviewParcelsFill].filter((l) => m.getLayer(l));
      m.on("click", (e) => {
        const hit = m.queryRenderedFeatures(e.point, { layers: clickable() })[0];
        if (selectingRef.current || e.originalEvent.shiftKey) {
          if (hit && !toggleSelected(hit)) say("Apropiați harta pentru a selecta parcele.");
          return;
        }
        if (!hit) return closePanel();
        const p = hit.properties ?? {};
        if (p.id) openFeature({ id: String(p.id) });
        else if (p.siruta && p.object_id) openFeature({ siruta: Number(p.siruta), objectId: Number(p.object_id) });
      });
      m.on("contextmenu", () => setSelecting(false));
      m.on("mousemove", (e) => {
        const over = m.queryRenderedFeatures(e.point, { layers: clickable() }).length > 0;
        m.getCanvas().style.cursor = over ? "pointer" : "";
      });
      m.on("idle", () => {
        const n = m.getLayer(LAYER.parcelsFill) ? m.queryRenderedFeatures({ layers: [LAYER.parcelsFill] }).length : 0;
        container.current?.setAttribute("data-rendered-parcels", String(n));
        container.current?.setAttribute("data-zoom", m.getZoom().toFixed(2));
      });
      m.once("load", () => !disposed && setReady(true));
      m.on("error", (e) => {
        const src = e.sourceId;
        if (src !== "osm" && src !== "ortho") console.warn("map error", e.error?.message);
      });
    })().catch((err) => !disposed && setLoadError(err.message || "Harta nu a putut fi încărcată."));
    return () => {
      disposed = true;
      map?.remove();
      mapRef.current = null;
    };
  }, [closePanel, openFeature, say, toggleSelected]);
  useEffect(() => {
    const map = mapRef.current;
    if (!ready || !map) return;
    const ids = [...selected.keys()];
    for (const l of [LAYER.selectionFill, LAYER.selectionLine]) if (map.getLayer(l)) map.setFilter(l, idFilter(ids));
  }, [selected, ready]);
  useEffect(() => {
    const onKey = (e) => {
      if (e.key === "Escape") setSelecting(false);
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const switchBasemap = (id) => {
    setBasemap(id);
    const map = mapRef.current;
    if (!map) return;
    map.setLayoutProperty("basemap-osm", "visibility", id === "osm" ? "visible" : "none");
    map.setLayoutProperty("basemap-ortho", "visibility", id === "ortho" ? "visible" : "none");
  };
  const flyTo = (r) => {
    const map = mapRef.current;
    if (map && r.bbox) {
      map.fitBounds(
        [
          [r.bbox[0], r.bbox[1]],
          [r.bbox[2], r.bbox[3]]
        ],
        { padding: 80, maxZoom: r.kind === "uat" ? 14 : 18, duration: 1200 }
      );
    } else if (!r.bbox) {
      say("Rezultatul nu are geometrie pe hartă.");
    }
    if (r.featureId) openFeature({ id: r.featureId });
  };
  const runExport = async (format) => {
    setExporting(true);
    try {
      const name = await downloadExport(format, [...selected.keys()]);
      say(`Fișierul ${name} a fost descărcat.`);
    } catch (err) {
      say(err.message);
    } finally {
      setExporting(false);
    }
  };
  return /* @__PURE__ */ jsxs("div", { className: selecting ? "geoportal is-selecting" : "geoportal", "data-testid": "geoportal", children: [
    /* @__PURE__ */ jsx("div", { ref: container, className: "geoportal__map", "data-testid": "geoportal-map", "data-ready": ready ? "1" : "0" }),
    /* @__PURE__ */ jsx("div", { className: "gp-toolbar", children: /* @__PURE__ */ jsx(SearchBox, { onPick: flyTo }) }),
    /* @__PURE__ */ jsxs("div", { className: "gp-tools", children: [
      /* @__PURE__ */ jsxs("label", { className: "gp-select", children: [
        /* @__PURE__ */ jsx("span", { className: "gp-select__label", children: "Fundal" }),
        /* @__PURE__ */ jsx("select", { value: basemap, onChange: (e) => switchBasemap(e.target.value), "data-testid": "basemap-select", children: BASEMAPS.map((b) => /* @__PURE__ */ jsxs("option", { value: b.id, children: [
          b.label,
          b.online ? " (internet)" : ""
        ] }, b.id)) })
      ] }),
      /* @__PURE__ */ jsx(
        "button",
        {
          type: "button",
          className: selecting ? "gp-btn gp-btn--on" : "gp-btn",
          "aria-pressed": selecting,
          "data-testid": "selection-toggle",
          onClick: () => setSelecting((s) => !s),
          title: "Selecție: clic pe parcele (sau Shift+clic oricând); Esc sau clic dreapta pentru ieșire",
          children: selecting ? "Selecție activă" : "Selectează parcele"
        }
      )
    ] }),
    panel ? /* @__PURE__ */ jsx(FeaturePanel, { state: panel, onClose: closePanel }) : null,
    panel ? null : /* @__PURE__ */ jsx(Legend, {}),
    selected.size > 0 || selecting ? /* @__PURE__ */ jsxs("div", { className: "gp-selection", "data-testid": "selection-bar", children: [
      /* @__PURE__ */ jsx("span", { className: "gp-selection__count", "data-testid": "selection-count", children: selected.size === 1 ? "1 parcelă selectată" : `${selected.size} parcele selectate` }),
      selecting ? /* @__PURE__ */ jsx("span", { className: "gp-muted", children: "Esc sau clic dreapta: ieșire din selecție" }) : null,
      /* @__PURE__ */ jsxs("span", { className: "gp-selection__actions", children: [
        ["geojson", "dxf", "gpkg"].map((f) => /* @__PURE__ */ jsx(
          "button",
          {
            type: "button",
            className: "gp-btn gp-btn--small",
            disabled: selected.size === 0 || exporting,
            "data-testid": `export-${f}`,
            onClick: () => runExport(f),
            children: f === "geojson" ? "GeoJSON" : f.toUpperCase()
          },
          f
        )),
        /* @__PURE__ */ jsx("button", { type: "button", className: "gp-btn gp-btn--small gp-btn--quiet", disabled: selected.size === 0, onClick: () => setSelected(/* @__PURE__ */ new Map()), children: "Golește" })
      ] })
    ] }) : null,
    basicPanel ? /* @__PURE__ */ jsx("p", { className: "gp-badge", children: "Acces restrâns la datele parcelelor" }) : null,
    toast ? /* @__PURE__ */ jsx("p", { className: "gp-toast", role: "status", children: toast }) : null,
    loadError ? /* @__PURE__ */ jsx("p", { className: "gp-toast gp-toast--fail", children: loadError }) : null
  ] });
}
function Legend() {
  const items = [
    [COLORS.parcelPlain, "Parcelă fără date îmbogățite", "fill"],
    [COLORS.parcelEnriched, "Parcelă cu date îmbogățite", "fill"],
    [COLORS.buildingLegal, "Clădire cu acte", "fill"],
    [COLORS.buildingIllegal, "Clădire fără acte", "fill"],
    [COLORS.buildingUnknown, "Clădire, situație necunoscută", "fill"],
    [COLORS.intravilan, "Limită intravilan", "double"],
    [COLORS.uat, "Limită UAT", "line"]
  ];
  return /* @__PURE__ */ jsxs("details", { className: "gp-legend", open: true, children: [
    /* @__PURE__ */ jsx("summary", { children: "Legendă" }),
    /* @__PURE__ */ jsx("ul", { children: items.map(([color, label, kind]) => /* @__PURE__ */ jsxs("li", { children: [
      /* @__PURE__ */ jsx("span", { className: `gp-swatch gp-swatch--${kind}`, style: { color } }),
      label
    ] }, label)) })
  ] });
}
const meta$2 = () => [{ title: "Geoportal · Geoportal cadastral" }];
const links = () => [
  { rel: "stylesheet", href: maplibreCss },
  { rel: "stylesheet", href: geoportalCss }
];
async function loader$2({ request, context }) {
  const auth = requireSession(request, context);
  return { basicPanel: auth.basicPanel };
}
function GeoportalPage() {
  const { basicPanel } = useLoaderData();
  return /* @__PURE__ */ jsx(GeoportalMap, { basicPanel });
}
const route5 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: GeoportalPage,
  links,
  loader: loader$2,
  meta: meta$2
}, Symbol.toStringTag, { value: "Module" }));
async function loadHealth() {
  return infrastructureHealth();
}
const HEALTH_CHECKS = [
  { key: "database", label: "Bază de date" },
  { key: "temporal", label: "Temporal" },
  { key: "storage", label: "Stocare obiecte" },
  { key: "mail", label: "E-mail" }
];
const HEALTH_REFRESH_MS = 15e3;
function isHealthReport(v) {
  if (!v || typeof v !== "object") return false;
  const checks = v.checks;
  if (!checks || typeof checks !== "object") return false;
  return HEALTH_CHECKS.every(({ key }) => {
    const p = checks[key];
    return !!p && typeof p === "object" && typeof p.ok === "boolean";
  });
}
const REQUEST_TIMEOUT_MS = 1e4;
const timeFormat = new Intl.DateTimeFormat("ro-RO", {
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZone: "Europe/Bucharest"
});
function formatTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? "" : timeFormat.format(d);
}
async function failureReason(res) {
  if (res.status === 401) return "sesiunea a expirat; reîncărcați pagina pentru a vă autentifica din nou";
  try {
    const body = await res.json();
    if (typeof body.message === "string") return body.message;
  } catch {
  }
  return `serverul a răspuns cu HTTP ${res.status}`;
}
function HealthLine({ initial }) {
  const [report, setReport] = useState(initial);
  const [state, setState] = useState(initial ? { kind: "idle" } : { kind: "checking" });
  const inFlight = useRef(null);
  const refresh = useCallback(async () => {
    if (inFlight.current) return;
    const ctrl = new AbortController();
    inFlight.current = ctrl;
    const timer = setTimeout(() => ctrl.abort(), REQUEST_TIMEOUT_MS);
    setState({ kind: "checking" });
    try {
      const res = await fetch("/api/health", {
        headers: { accept: "application/json" },
        credentials: "same-origin",
        cache: "no-store",
        signal: ctrl.signal
      });
      if (!res.ok) {
        setState({ kind: "failed", reason: await failureReason(res) });
        return;
      }
      const body = await res.json();
      if (!isHealthReport(body)) {
        setState({ kind: "failed", reason: "răspuns neașteptat de la server" });
        return;
      }
      setReport(body);
      setState({ kind: "idle" });
    } catch (err) {
      const aborted = err instanceof DOMException && err.name === "AbortError";
      setState({
        kind: "failed",
        reason: aborted ? "serverul nu a răspuns în 10 secunde" : "serverul nu poate fi contactat"
      });
    } finally {
      clearTimeout(timer);
      inFlight.current = null;
    }
  }, []);
  useEffect(() => {
    if (!initial) void refresh();
    const id = window.setInterval(() => void refresh(), HEALTH_REFRESH_MS);
    return () => {
      window.clearInterval(id);
      inFlight.current?.abort();
    };
  }, [initial, refresh]);
  const failed = state.kind === "failed";
  const checking = state.kind === "checking";
  const allOk = !failed && !!report?.ok;
  return /* @__PURE__ */ jsxs("section", { className: "card health", "aria-labelledby": "health-title", "data-testid": "health-line", children: [
    /* @__PURE__ */ jsxs("header", { className: "card__head", children: [
      /* @__PURE__ */ jsx("h2", { id: "health-title", className: "card__title", children: "Starea infrastructurii" }),
      /* @__PURE__ */ jsxs("span", { className: "health__meta", "aria-live": "polite", children: [
        checking ? /* @__PURE__ */ jsx("span", { className: "health__checking", children: "se verifică…" }) : report ? /* @__PURE__ */ jsxs(Fragment, { children: [
          failed ? "Ultima verificare reușită la" : "Actualizat la",
          " ",
          formatTime(report.checkedAt)
        ] }) : null,
        !checking ? /* @__PURE__ */ jsx("button", { type: "button", className: "btn btn--link", onClick: () => void refresh(), children: "Verifică acum" }) : null
      ] })
    ] }),
    /* @__PURE__ */ jsx("ul", { className: "health__list", children: HEALTH_CHECKS.map(({ key, label }) => /* @__PURE__ */ jsx(
      Indicator,
      {
        testId: `health-${key}`,
        label,
        probe: report?.checks[key],
        failed,
        pending: !report && !failed
      },
      key
    )) }),
    failed ? /* @__PURE__ */ jsxs("p", { className: "health__banner health__banner--error", role: "alert", "data-testid": "health-error", children: [
      "Starea serviciilor nu poate fi verificată: ",
      state.reason.replace(/[.\s]+$/, ""),
      "."
    ] }) : report ? /* @__PURE__ */ jsx("p", { className: allOk ? "health__banner health__banner--ok" : "health__banner health__banner--warn", children: allOk ? "Toate serviciile funcționează normal." : "Unele servicii nu răspund; funcțiile care depind de ele pot fi indisponibile." }) : null
  ] });
}
function Indicator(props) {
  const { testId, label, probe, failed, pending } = props;
  const tipId = useId();
  const state = pending ? "checking" : failed || !probe?.ok ? "fail" : "ok";
  const status = pending ? "se verifică…" : failed ? "necunoscut" : probe?.ok ? "funcțional" : "indisponibil";
  const tip = pending ? "Verificarea este în curs." : failed ? "Ultima verificare nu a reușit; starea reală nu este cunoscută." : probe ? `${probe.detail ?? (probe.ok ? "Răspunde" : "Nu răspunde")} · ${probe.ms} ms` : "";
  return /* @__PURE__ */ jsxs(
    "li",
    {
      className: `indicator indicator--${state}`,
      "data-testid": testId,
      "data-state": state,
      tabIndex: 0,
      "aria-describedby": tipId,
      children: [
        /* @__PURE__ */ jsx("span", { className: "indicator__dot", "aria-hidden": "true" }),
        /* @__PURE__ */ jsxs("span", { className: "indicator__text", children: [
          /* @__PURE__ */ jsx("span", { className: "indicator__label", children: label }),
          /* @__PURE__ */ jsx("span", { className: "indicator__status", children: status })
        ] }),
        probe && !failed && !pending ? /* @__PURE__ */ jsxs("span", { className: "indicator__ms", children: [
          probe.ms,
          " ms"
        ] }) : null,
        /* @__PURE__ */ jsx("span", { role: "tooltip", id: tipId, className: "indicator__tip", children: tip })
      ]
    }
  );
}
const meta$1 = () => [{ title: "Acasă · Geoportal cadastral" }];
async function loader$1({ request, context }) {
  const auth = requireSession(request, context);
  const health = await loadHealth().catch(() => null);
  return {
    user: {
      name: auth.user.name,
      email: auth.user.email,
      company: auth.user.company,
      isAdmin: auth.isAdmin,
      useCentralApi: auth.useCentralApi
    },
    health
  };
}
function Home() {
  const { user, health } = useLoaderData();
  return /* @__PURE__ */ jsxs("div", { className: "home", children: [
    /* @__PURE__ */ jsxs("header", { className: "page-head", children: [
      /* @__PURE__ */ jsx("p", { className: "page-head__eyebrow", children: "Acasă" }),
      /* @__PURE__ */ jsxs("h1", { className: "page-head__title", "data-testid": "greeting", children: [
        "Bun venit, ",
        user.name,
        "!"
      ] }),
      /* @__PURE__ */ jsxs("p", { className: "page-head__sub", children: [
        /* @__PURE__ */ jsx("span", { "data-testid": "greeting-email", children: user.email }),
        /* @__PURE__ */ jsx("span", { className: "dot-sep", "aria-hidden": "true" }),
        /* @__PURE__ */ jsx("span", { "data-testid": "greeting-company", children: companyLabel(user.company) })
      ] })
    ] }),
    /* @__PURE__ */ jsx(HealthLine, { initial: health }),
    /* @__PURE__ */ jsxs("div", { className: "grid grid--2", children: [
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "account-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "account-title", className: "card__title", children: "Contul dumneavoastră" }) }),
        /* @__PURE__ */ jsxs("dl", { className: "facts", children: [
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Nume" }),
            /* @__PURE__ */ jsx("dd", { children: user.name })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "E-mail" }),
            /* @__PURE__ */ jsx("dd", { children: user.email })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Companie" }),
            /* @__PURE__ */ jsx("dd", { children: companyLabel(user.company) })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Rol" }),
            /* @__PURE__ */ jsx("dd", { children: user.isAdmin ? "Administrator" : "Utilizator" })
          ] }),
          /* @__PURE__ */ jsxs("div", { children: [
            /* @__PURE__ */ jsx("dt", { children: "Sursa datelor" }),
            /* @__PURE__ */ jsx("dd", { children: user.useCentralApi ? "API-ul central GIS" : "Depozitul local" })
          ] })
        ] })
      ] }),
      /* @__PURE__ */ jsxs("section", { className: "card", "aria-labelledby": "about-title", children: [
        /* @__PURE__ */ jsx("header", { className: "card__head", children: /* @__PURE__ */ jsx("h2", { id: "about-title", className: "card__title", children: "Despre serviciu" }) }),
        /* @__PURE__ */ jsx("p", { className: "prose", children: "Geoportalul reunește harta parcelelor, clădirilor și limitelor administrative, sincronizarea cu portalul de cadastru, comenzile de extrase CF, registratura și notificările." }),
        /* @__PURE__ */ jsx("p", { className: "prose prose--muted", children: "Modulele apar în bara de navigare pe măsură ce devin disponibile." })
      ] })
    ] })
  ] });
}
const route6 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: Home,
  loader: loader$1,
  meta: meta$1
}, Symbol.toStringTag, { value: "Module" }));
const meta = () => [{ title: "Pagina nu a fost găsită · Geoportal cadastral" }];
function loader() {
  return data(null, { status: 404 });
}
function NotFound() {
  return /* @__PURE__ */ jsx(ErrorPanel, { status: 404, title: "Pagina nu a fost găsită", message: "Adresa cerută nu există sau a fost mutată." });
}
const route7 = /* @__PURE__ */ Object.freeze(/* @__PURE__ */ Object.defineProperty({
  __proto__: null,
  default: NotFound,
  loader,
  meta
}, Symbol.toStringTag, { value: "Module" }));
const serverManifest = { "entry": { "module": "/assets/entry.client-BvZLDwB4.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes": { "root": { "id": "root", "parentId": void 0, "path": "", "index": void 0, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": true, "module": "/assets/root-DvbeEAlZ.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/components-P_zQs7f1.js", "/assets/companies-jBk1ve2Z.js", "/assets/ErrorPanel-CAD1HAIV.js"], "css": [] }, "routes/parcel-sync_.parcel.$id": { "id": "routes/parcel-sync_.parcel.$id", "parentId": "root", "path": "parcel-sync/parcel/:id", "index": void 0, "caseSensitive": void 0, "hasAction": true, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/parcel-sync_.parcel._id-CUWmoawP.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/format-BRItpfsp.js", "/assets/EnrichmentFields-DJ8XLbn5.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/parcel-sync_.dashboard": { "id": "routes/parcel-sync_.dashboard", "parentId": "root", "path": "parcel-sync/dashboard", "index": void 0, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/parcel-sync_.dashboard-BlgkbETK.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/format-BRItpfsp.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/infrastructura-harti": { "id": "routes/infrastructura-harti", "parentId": "root", "path": "infrastructura-harti", "index": void 0, "caseSensitive": void 0, "hasAction": true, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/infrastructura-harti-CABnIP3w.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/parcel-sync": { "id": "routes/parcel-sync", "parentId": "root", "path": "parcel-sync", "index": void 0, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/parcel-sync-By7l-lRn.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/format-BRItpfsp.js", "/assets/EnrichmentFields-DJ8XLbn5.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/geoportal": { "id": "routes/geoportal", "parentId": "root", "path": "geoportal", "index": void 0, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/geoportal-D7yvNNzg.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/_index": { "id": "routes/_index", "parentId": "root", "path": void 0, "index": true, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/_index-TiCPsvap.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/companies-jBk1ve2Z.js", "/assets/components-P_zQs7f1.js"], "css": [] }, "routes/$": { "id": "routes/$", "parentId": "root", "path": "*", "index": void 0, "caseSensitive": void 0, "hasAction": false, "hasLoader": true, "hasClientAction": false, "hasClientLoader": false, "hasErrorBoundary": false, "module": "/assets/_-tq0hdVe4.js", "imports": ["/assets/jsx-runtime-0DLF9kdB.js", "/assets/ErrorPanel-CAD1HAIV.js"], "css": [] } }, "url": "/assets/manifest-fef99cd0.js", "version": "fef99cd0" };
const mode = "production";
const assetsBuildDirectory = "build-gp/client";
const basename = "/";
const future = { "v3_fetcherPersist": true, "v3_relativeSplatPath": true, "v3_throwAbortReason": true, "v3_routeConfig": false, "v3_singleFetch": true, "v3_lazyRouteDiscovery": true, "unstable_optimizeDeps": false };
const isSpaMode = false;
const publicPath = "/";
const entry = { module: entryServer };
const routes = {
  "root": {
    id: "root",
    parentId: void 0,
    path: "",
    index: void 0,
    caseSensitive: void 0,
    module: route0
  },
  "routes/parcel-sync_.parcel.$id": {
    id: "routes/parcel-sync_.parcel.$id",
    parentId: "root",
    path: "parcel-sync/parcel/:id",
    index: void 0,
    caseSensitive: void 0,
    module: route1
  },
  "routes/parcel-sync_.dashboard": {
    id: "routes/parcel-sync_.dashboard",
    parentId: "root",
    path: "parcel-sync/dashboard",
    index: void 0,
    caseSensitive: void 0,
    module: route2
  },
  "routes/infrastructura-harti": {
    id: "routes/infrastructura-harti",
    parentId: "root",
    path: "infrastructura-harti",
    index: void 0,
    caseSensitive: void 0,
    module: route3
  },
  "routes/parcel-sync": {
    id: "routes/parcel-sync",
    parentId: "root",
    path: "parcel-sync",
    index: void 0,
    caseSensitive: void 0,
    module: route4
  },
  "routes/geoportal": {
    id: "routes/geoportal",
    parentId: "root",
    path: "geoportal",
    index: void 0,
    caseSensitive: void 0,
    module: route5
  },
  "routes/_index": {
    id: "routes/_index",
    parentId: "root",
    path: void 0,
    index: true,
    caseSensitive: void 0,
    module: route6
  },
  "routes/$": {
    id: "routes/$",
    parentId: "root",
    path: "*",
    index: void 0,
    caseSensitive: void 0,
    module: route7
  }
};
export {
  serverManifest as assets,
  assetsBuildDirectory,
  basename,
  entry,
  future,
  isSpaMode,
  mode,
  publicPath,
  routes
};
