/** The page a server-rendered form answers when another site's page posted it (403). */
import { renderMessagePage } from "../approvals/page";

export const crossSitePage = () =>
  renderMessagePage(
    "Sent from another site",
    "This form was sent from a page that is not this service's; nothing was decided. Open the link again and decide here.",
    "error",
  );
