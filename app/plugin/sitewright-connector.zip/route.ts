import { route } from "@/lib/http/route";
import { PLUGIN_ZIP_NAME, servedPluginZip } from "@/lib/plugin-package";

/** The Sitewright Connector plugin, ready for wp-admin's Plugins → Add New → Upload. Public: the plugin is GPL. */
export const GET = route({ auth: "none" }, async () => {
  const { bytes, version } = servedPluginZip();
  return new Response(Buffer.from(bytes), {
    status: 200,
    headers: {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${PLUGIN_ZIP_NAME}"`,
      "content-length": String(bytes.byteLength),
      "cache-control": "public, max-age=300",
      "x-plugin-version": version,
    },
  });
});
