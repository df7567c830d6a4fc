/** /instrumente: the document tools have no page of their own; the first tab is the landing page. */
import { redirect, type LoaderFunctionArgs } from '@remix-run/node';
import { requireSession } from '../lib/auth.server';
import { DOC_TOOL_TABS } from '../components/tools/ToolsLayout';

export function loader({ request, context }: LoaderFunctionArgs) {
  requireSession(request, context);
  return redirect(DOC_TOOL_TABS[0]?.href ?? '/');
}
