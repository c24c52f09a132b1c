/**
 * The admin page (web/): an HTML import, so Bun bundles its script and stylesheet
 * and embeds them in the executable; nothing is loaded from outside. It is handed
 * to Bun.serve as a static route: Elysia serializes an HTML bundle as JSON when
 * the app has global hooks, as this one does.
 */
import adminPage from "../../../web/index.html";

export const adminPageRoutes = { "/admin": adminPage };
