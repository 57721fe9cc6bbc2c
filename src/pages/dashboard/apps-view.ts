// The dashboard's connected applications (GET /auth/apps): the MCP clients the account signed in by OAuth, each with
// what it may do, when it connected and was last used, and a form that disconnects it.
import { metadataUrlOf, SCOPE_SUMMARIES, type ConnectedApp } from '../../operations/oauth.js';
import { utcMinute } from '../components.js';
import { html, type Html } from '../html.js';

function appRow(app: ConnectedApp): Html {
  // The document's URL is shown as text, not a link: it says who serves the client, and a name can claim anything.
  const documentUrl = metadataUrlOf(app.client_id);
  return html`<tr>
    <td>
      ${app.client_name}${documentUrl ? html`<br /><code>${documentUrl}</code>` : ''}
      <form method="post" action="/dashboard/apps/${app.id}/disconnect">
        <button type="submit" class="danger" aria-label="Disconnect ${app.client_name}">Disconnect</button>
      </form>
    </td>
    <td>${app.scopes.map((scope) => SCOPE_SUMMARIES[scope] ?? scope).join(', ')}</td>
    <td>${utcMinute(app.connected_at)}</td>
    <td>${app.last_used_at ? utcMinute(app.last_used_at) : 'never'}</td>
  </tr>`;
}

export function appsSection(base: string, apps: ConnectedApp[]): Html {
  return html`<section class="panel" id="apps" aria-labelledby="apps-h">
    <h2 id="apps-h">Connected applications</h2>
    ${
      apps.length
        ? html`<p>
              MCP clients you signed in to this account. What they use is charged to it; disconnecting one stops its
              access at once.
            </p>
            <table class="apps">
              <caption>
                Your connected applications
              </caption>
              <thead>
                <tr>
                  <th scope="col">Application</th>
                  <th scope="col">Allowed to</th>
                  <th scope="col">Connected</th>
                  <th scope="col">Last used</th>
                </tr>
              </thead>
              <tbody>
                ${apps.map(appRow)}
              </tbody>
            </table>`
        : html`<p>
            No applications connected. Add <code>${base}/mcp</code> as a remote MCP server in Claude, ChatGPT, Cursor or
            VS Code; it signs you in here.
          </p>`
    }
  </section>`;
}
