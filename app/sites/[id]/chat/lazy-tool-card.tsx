"use client";
/**
 * The tool card, its diff view and the `ai` helpers they use load only when a message has a tool call: most
 * first paints (a new chat, a conversation without changes) need none of that JavaScript.
 */
import dynamic from "next/dynamic";

export const LazyToolCard = dynamic(() => import("./tool-card").then((module) => module.ToolCard));
